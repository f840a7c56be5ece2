#include "netcdf_input.hpp"

#include <netcdf.h>

namespace tessera::weather {

namespace {
void check(int status) {
  if (status != NC_NOERR) throw NcStatus{status};
}
}  // namespace

NcInput::NcInput(const std::string& path) { check(nc_open(path.c_str(), NC_NOWRITE, &id_)); }

NcInput::~NcInput() {
  if (id_ >= 0) nc_close(id_);
}

std::optional<int> NcInput::variable(const std::string& name) const {
  int var = -1;
  const int status = nc_inq_varid(id_, name.c_str(), &var);
  if (status == NC_ENOTVAR) return std::nullopt;
  check(status);
  return var;
}

std::vector<std::string> NcInput::variable_names() const {
  int count = 0;
  check(nc_inq_nvars(id_, &count));
  std::vector<std::string> names;
  for (int var = 0; var < count; ++var) names.push_back(variable_name(var));
  return names;
}

std::string NcInput::variable_name(int var) const {
  char name[NC_MAX_NAME + 1] = {};
  check(nc_inq_varname(id_, var, name));
  return name;
}

std::vector<std::string> NcInput::dimension_names(int var) const {
  int ndims = 0;
  check(nc_inq_varndims(id_, var, &ndims));
  if (ndims < 0 || ndims > NC_MAX_VAR_DIMS) throw NcStatus{NC_EMAXDIMS};
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  check(nc_inq_vardimid(id_, var, dims.data()));
  std::vector<std::string> names;
  for (int d : dims) {
    char name[NC_MAX_NAME + 1] = {};
    check(nc_inq_dimname(id_, d, name));
    names.push_back(name);
  }
  return names;
}

std::vector<std::size_t> NcInput::dimension_sizes(int var) const {
  int ndims = 0;
  check(nc_inq_varndims(id_, var, &ndims));
  if (ndims < 0 || ndims > NC_MAX_VAR_DIMS) throw NcStatus{NC_EMAXDIMS};
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  check(nc_inq_vardimid(id_, var, dims.data()));
  std::vector<std::size_t> sizes;
  for (int d : dims) {
    std::size_t n = 0;
    check(nc_inq_dimlen(id_, d, &n));
    sizes.push_back(n);
  }
  return sizes;
}

std::optional<std::string> NcInput::text_attribute(int var, const std::string& name) const {
  nc_type type = NC_NAT;
  std::size_t length = 0;
  const int status = nc_inq_att(id_, var, name.c_str(), &type, &length);
  if (status == NC_ENOTATT) return std::nullopt;
  check(status);
  if (type == NC_CHAR) {
    std::string value(length, '\0');
    check(nc_get_att_text(id_, var, name.c_str(), value.data()));
    return value;
  }
  if (type == NC_STRING && length == 1) {
    char* value = nullptr;
    check(nc_get_att_string(id_, var, name.c_str(), &value));
    std::string copy = value ? value : "";
    nc_free_string(1, &value);
    return copy;
  }
  return std::nullopt;
}

std::optional<double> NcInput::number_attribute(int var, const std::string& name) const {
  nc_type type = NC_NAT;
  std::size_t length = 0;
  const int status = nc_inq_att(id_, var, name.c_str(), &type, &length);
  if (status == NC_ENOTATT) return std::nullopt;
  check(status);
  if (type == NC_CHAR || type == NC_STRING || length == 0) return std::nullopt;
  std::vector<double> values(length);
  check(nc_get_att_double(id_, var, name.c_str(), values.data()));
  return values.front();
}

std::vector<std::string> NcInput::attribute_names(int var) const {
  int count = 0;
  check(var == NC_GLOBAL ? nc_inq_natts(id_, &count) : nc_inq_varnatts(id_, var, &count));
  std::vector<std::string> names;
  for (int k = 0; k < count; ++k) {
    char name[NC_MAX_NAME + 1] = {};
    check(nc_inq_attname(id_, var, k, name));
    names.push_back(name);
  }
  return names;
}

void NcInput::read(int var, const std::vector<std::size_t>& start,
                   const std::vector<std::size_t>& count, double* out) const {
  check(nc_get_vara_double(id_, var, start.data(), count.data(), out));
}

}  // namespace tessera::weather
