// Fuzz harness: DeePMD-kit model files (YAML, as `dp convert-backend` writes them), parsed by
// deepmd::parse_model; a model that loads and is small is then run by md_ipu on 192 water atoms
// (pair_style deepmd), so that its numbers, not only its layout, meet the kernel.
#include <algorithm>
#include <string>

#include "fuzz_support.hpp"
#include "md_fuzz_support.hpp"
#include "tessera/md/deepmd/model.hpp"

TESSERA_FUZZ_INIT() { tessera::fuzz::md_fixtures(); }

TESSERA_FUZZ_HARNESS(data, size) {
  const std::string text(tessera::fuzz::text(data, size));
  const tessera::md::deepmd::Model model = tessera::md::deepmd::parse_model(text, "'fuzz.yaml'");
  if (model.ntypes() > 4 || model.nnei() > 64 || model.weight_bytes() > 64 * 1024) return;
  tessera::fuzz::write_file("fuzz.yaml", text);
  const std::string& o = model.type_map.front();
  const std::string& h = model.type_map[std::min<std::size_t>(1, model.type_map.size() - 1)];
  tessera::fuzz::run_md_script(
      "units metal\nread_data water_192.data\npair_style deepmd fuzz.yaml\n"
      "pair_coeff * * " +
      o + " " + h + "\nthermo 1\nfix 1 all nve\nrun 2\n");
}
