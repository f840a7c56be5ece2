// NcInput: one NetCDF file open for reading, through the NetCDF C interface. The handle is
// owned by this object alone: opened by the constructor, closed once by the destructor, on
// every path (an error in the middle of reading included). (NetCDF-C++4's NcFile is not used:
// its destructor reports a failed close on std::cerr only, and its handles are easy to copy
// past the file's life.)
//
// Every failing call throws NcStatus with the library's status; callers turn it into a
// message that names the file. Read untrusted files inside tessera::isolated_call
// (HDF5 can crash on a damaged NetCDF-4 file).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tessera::weather {

struct NcStatus {
  int status;
};

class NcInput {
 public:
  // Opens `path` read-only. Throws NcStatus.
  explicit NcInput(const std::string& path);
  ~NcInput();
  NcInput(const NcInput&) = delete;
  NcInput& operator=(const NcInput&) = delete;

  // The id of variable `name`, or nothing if the file has none.
  std::optional<int> variable(const std::string& name) const;
  std::vector<std::string> variable_names() const;
  std::string variable_name(int var) const;
  // The dimensions of a variable: names and lengths, slowest first.
  std::vector<std::string> dimension_names(int var) const;
  std::vector<std::size_t> dimension_sizes(int var) const;
  // A text attribute (NC_CHAR or a single NC_STRING), or nothing if there is none.
  std::optional<std::string> text_attribute(int var, const std::string& name) const;
  // A numeric attribute's first value as a double, or nothing if there is none.
  std::optional<double> number_attribute(int var, const std::string& name) const;
  // The names of a variable's attributes.
  std::vector<std::string> attribute_names(int var) const;
  // Reads the block start..start+count of a variable, converted to double, into `out`
  // (which must hold the product of `count`).
  void read(int var, const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
            double* out) const;

 private:
  int id_ = -1;
};

}  // namespace tessera::weather
