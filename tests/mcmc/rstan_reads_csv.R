# rstan_reads_csv.R CHAINS DRAWS WARMUP_ROWS FILE...: rstan reads mcmc_ipu's CmdStan CSV files
# (read_stan_csv, warnings as errors: a draw count that does not match num_samples, thin and
# save_warmup is one), get_elapsed_time returns each chain's warm-up and sampling seconds, and
# the kept draws and saved warm-up rows are where rstan expects them.
options(warn = 2)
args <- commandArgs(trailingOnly = TRUE)
chains <- as.integer(args[1])
draws <- as.integer(args[2])
warmup_rows <- as.integer(args[3])
files <- args[-(1:3)]
suppressPackageStartupMessages(library(rstan))
fit <- read_stan_csv(files)
fail <- function(...) {
  cat("FAIL:", ..., "\n")
  quit(status = 1)
}
times <- get_elapsed_time(fit)
print(times)
if (!identical(colnames(times), c("warmup", "sample"))) fail("columns", colnames(times))
if (nrow(times) != chains) fail(nrow(times), "rows of times for", chains, "chains")
if (any(is.na(times)) || any(times < 0)) fail("elapsed times missing or negative")
if (sum(times) <= 0) fail("no time measured")
kept <- dim(as.array(fit))[1]
if (kept != draws) fail(kept, "kept draws, expected", draws)
if (fit@sim$warmup2[1] != warmup_rows) fail(fit@sim$warmup2[1], "warm-up rows, expected", warmup_rows)
s <- summary(fit)$summary
if (any(is.na(s[, "mean"]))) fail("the summary has missing means")
cat("rstan read", chains, "chains of", kept, "draws and", warmup_rows, "warm-up rows\n")
