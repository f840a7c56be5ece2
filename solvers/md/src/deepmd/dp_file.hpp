// DeePMD-kit's backend-independent model file (.dp, internal to the md module): an HDF5 file whose
// root attribute "json" holds the serialized model with each array replaced by the name of a
// dataset ("/variable_0000", ...) of the same file (save_dp_model in DeePMD-kit's
// deepmd/dpmodel/utils/serialization.py). dp_model_tree gives the same tree as the model's YAML
// form (`dp convert-backend model.dp model.yaml`), each array an "@class: np.ndarray" node with
// its dtype and nested values, so that one parser reads both.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace tessera::md::deepmd {

// `bytes` is the whole file; `path` names it in messages. Throws FormatError for a file that
// is not HDF5, has no "json" attribute, is not JSON, or names a dataset it lacks.
YAML::Node dp_model_tree(const std::string& bytes, const std::string& path);

}  // namespace tessera::md::deepmd
