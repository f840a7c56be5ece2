// Fuzz harness: CmdStan CSV files as mcmc::read_cmdstan_csv reads them back (the settings
// header, the columns, the adaptation block, the draws and the timing trailer).
#include "fuzz_support.hpp"
#include "tessera/mcmc/output.hpp"

TESSERA_FUZZ_INIT() {}

TESSERA_FUZZ_HARNESS(data, size) {
  using namespace tessera;
  const std::string path = fuzz::write_file("output.csv", fuzz::text(data, size));
  const mcmc::CmdStanCsv csv = mcmc::read_cmdstan_csv(path);
  for (const auto* rows : {&csv.rows, &csv.warmup_rows})
    for (const auto& row : *rows)
      if (row.size() != csv.columns.size())
        fuzz::finding("read_cmdstan_csv: a row of " + std::to_string(row.size()) + " values for " +
                      std::to_string(csv.columns.size()) + " columns");
}
