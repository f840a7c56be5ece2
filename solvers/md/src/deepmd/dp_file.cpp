// Reading DeePMD-kit's .dp model files (dp_file.hpp) through the HDF5 library's in-memory file
// driver, so that the bytes rank 0 read and sent to every rank are opened where they are.
#include "dp_file.hpp"

#include <hdf5.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::md::deepmd {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw FormatError("DeePMD model '" + path + "': " + what +
                    "; expected a DeePMD-kit .dp model (an HDF5 file written by `dp "
                    "convert-backend`)");
}

// An HDF5 identifier closed by `close` when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 prints its error stack by default; the messages here say what went wrong instead.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

std::string read_json_attribute(hid_t file, const std::string& path) {
  if (H5Aexists(file, "json") <= 0) fail(path, "the file has no root attribute 'json'");
  const Handle attr(H5Aopen(file, "json", H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!attr.ok() || !type.ok() || H5Tget_class(type.get()) != H5T_STRING)
    fail(path, "its attribute 'json' is not a string");
  if (H5Tis_variable_str(type.get()) > 0) {
    const Handle memtype(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memtype.get(), H5T_VARIABLE);
    H5Tset_cset(memtype.get(), H5Tget_cset(type.get()));
    char* text = nullptr;
    if (H5Aread(attr.get(), memtype.get(), &text) < 0 || text == nullptr)
      fail(path, "its attribute 'json' cannot be read");
    std::string out(text);
    H5free_memory(text);
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string out(size, '\0');
  if (H5Aread(attr.get(), type.get(), out.data()) < 0)
    fail(path, "its attribute 'json' cannot be read");
  out.resize(out.find('\0') == std::string::npos ? size : out.find('\0'));
  return out;
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// A dataset as the YAML form's np.ndarray node: dtype and values nested by its dimensions.
YAML::Node array_node(hid_t file, const std::string& name, const std::string& path) {
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0)
    fail(path, "its JSON names dataset '" + name + "', which the file does not have");
  const Handle set(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  const Handle space(H5Dget_space(set.get()), H5Sclose);
  const Handle type(H5Dget_type(set.get()), H5Tclose);
  if (!set.ok() || !space.ok() || !type.ok() || H5Tget_class(type.get()) != H5T_FLOAT)
    fail(path, "dataset '" + name + "' is not an array of floating-point numbers");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  std::size_t count = 1;
  for (hsize_t d : dims) count *= static_cast<std::size_t>(d);
  std::vector<double> values(count);
  if (count > 0 &&
      H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    fail(path, "dataset '" + name + "' cannot be read");
  // Nested lists, row-major, as numpy's tolist() gives them.
  std::size_t at = 0;
  const auto nest = [&](auto&& self, std::size_t axis) -> YAML::Node {
    if (axis == dims.size()) return YAML::Node(number_text(values[at++]));
    YAML::Node list(YAML::NodeType::Sequence);
    for (hsize_t k = 0; k < dims[axis]; ++k) list.push_back(self(self, axis + 1));
    return list;
  };
  YAML::Node node;
  node["@class"] = "np.ndarray";
  node["@is_variable"] = "true";
  node["@version"] = "1";
  node["dtype"] = H5Tget_size(type.get()) == 4 ? "float32" : "float64";
  node["value"] = nest(nest, 0);
  return node;
}

// The JSON tree as YAML nodes; under "@variables" (DeePMD-kit's traverse_model_dict) strings are
// the names of datasets.
YAML::Node convert(const nlohmann::json& j, bool variable, hid_t file, const std::string& path) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node map(YAML::NodeType::Map);
      for (const auto& [key, value] : j.items())
        map[key] = convert(value, variable || key == "@variables", file, path);
      return map;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node list(YAML::NodeType::Sequence);
      for (const auto& value : j) list.push_back(convert(value, variable, file, path));
      return list;
    }
    case nlohmann::json::value_t::string:
      return variable ? array_node(file, j.get<std::string>(), path)
                      : YAML::Node(j.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return YAML::Node(j.get<bool>() ? "true" : "false");
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return YAML::Node(j.dump());
    case nlohmann::json::value_t::number_float:
      return YAML::Node(number_text(j.get<double>()));
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

}  // namespace

YAML::Node dp_model_tree(const std::string& bytes, const std::string& path) {
  const QuietErrors quiet;
  if (bytes.size() < 8 || bytes.compare(0, 8, "\x89HDF\r\n\x1a\n") != 0)
    fail(path, "the file is not HDF5");
  // The core (in-memory) driver over a copy of the bytes, read-only.
  const Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!access.ok() || H5Pset_fapl_core(access.get(), 1 << 16, 0) < 0 ||
      H5Pset_file_image(access.get(), const_cast<char*>(bytes.data()), bytes.size()) < 0)
    fail(path, "the HDF5 library cannot take the file's image");
  // The driver takes the image only under a name no file has (it refuses an existing one).
  const Handle file(H5Fopen("/nonexistent/tessera-dp-image", H5F_ACC_RDONLY, access.get()),
                    H5Fclose);
  if (!file.ok()) fail(path, "the HDF5 library cannot open the file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_json_attribute(file.get(), path));
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("its attribute 'json' is not JSON: ") + e.what());
  }
  return convert(j, false, file.get(), path);
}

}  // namespace tessera::md::deepmd
