#!/usr/bin/env Rscript
# Effective samples per second: Tessera's NUTS against Stan's own (Debian's rstan 2.21), on the
# same Stan programs, the same data, the same cores, in one run.
#
#   Rscript bench/mcmc/compare_stan.R --mcmc-ipu build/apps/mcmc/mcmc_ipu \
#       [--cores 1,2] [--repeats 3] [--only arK,garch11] [--work DIR]
#
# Posteriors: the six of ../shared/data/posteriordb (posteriordb's programs, kept in
# tests/mcmc/stan/posteriordb) and two of bench/mcmc/stan: the 100-d correlated Gaussian
# (rho = 0.9) and a 31-parameter logistic regression on N = 1000 simulated rows (seed 1).
# Both samplers run NUTS with a diagonal metric, 4 chains, 1000 warm-up iterations and 1000
# draws, delta 0.8, max depth 10 (both sides' defaults). mcmc_ipu samples the Stan program
# itself (--stan), so both sides evaluate the same generated C++ against the same Stan Math:
# what differs is the sampler around it and how the chains share the cores.
#
# Reported per posterior, cores and side (medians over the repeats, which alternate sides):
#   min bulk-ESS over every column but lp__ (rstan::ess_bulk, Vehtari et al. 2021, the same
#   function on both sides' draws), warm-up and sampling seconds, ESS/s of sampling time, and
#   microseconds per gradient (sampling seconds x cores / leapfrog steps of all chains).
# Phase seconds: mcmc_ipu's CSV trailer (wall time of the run's phases). rstan: the chains'
# own elapsed times (get_elapsed_time) summed over chains and divided by the cores, i.e.
# Stan's chains taken as perfectly spread over the cores; with cores = 2 this is in Stan's
# favour (its chains start in 2 worker processes that also cost start-up time, not counted).
# The warm-up is reported apart, as the issue asks; whole-process times are not compared.
suppressPackageStartupMessages({
  library(rstan)
  library(jsonlite)
})

options(width = 200)
args <- commandArgs(trailingOnly = TRUE)
option <- function(name, default) {
  at <- match(name, args)
  if (is.na(at)) default else args[[at + 1]]
}
here <- normalizePath(dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
repo <- normalizePath(file.path(here, "..", ".."))
mcmc_ipu <- option("--mcmc-ipu", file.path(repo, "build", "apps", "mcmc", "mcmc_ipu"))
cores_list <- as.integer(strsplit(option("--cores", "1,2"), ",")[[1]])
repeats <- as.integer(option("--repeats", "3"))
work <- option("--work", file.path(tempdir(), "compare_stan"))
only <- option("--only", "")
dir.create(work, showWarnings = FALSE, recursive = TRUE)
stan_cache <- file.path(work, "stan_cache")
if (!file.exists(mcmc_ipu)) stop("no mcmc_ipu at ", mcmc_ipu, " (build first, or give --mcmc-ipu)")

shared <- file.path(repo, "..", "shared", "data", "posteriordb")
if (!dir.exists(shared)) stop("the posteriordb data are read from ", shared, ", which is absent")
program_dir <- file.path(repo, "tests", "mcmc", "stan", "posteriordb")
posteriors <- list(
  list(name = "arK", program = "arK.stan", data = "arK-arK"),
  list(name = "arma11", program = "arma11.stan", data = "arma-arma11"),
  list(name = "eight_schools_noncentered", program = "eight_schools_noncentered.stan",
       data = "eight_schools-eight_schools_noncentered"),
  list(name = "garch11", program = "garch11.stan", data = "garch-garch11"),
  list(name = "low_dim_gauss_mix", program = "low_dim_gauss_mix.stan",
       data = "low_dim_gauss_mix-low_dim_gauss_mix"),
  list(name = "logmesquite", program = "logmesquite.stan", data = "mesquite-logmesquite"))
for (i in seq_along(posteriors)) {
  posteriors[[i]]$program <- file.path(program_dir, posteriors[[i]]$program)
  posteriors[[i]]$data <- file.path(shared, posteriors[[i]]$data, "data.json")
}

# The two synthetic posteriors' data, written once into the work folder.
gaussian_data <- file.path(work, "correlated_gaussian.json")
write_json(list(N = 100, rho = 0.9), gaussian_data, auto_unbox = TRUE, digits = NA)
logistic_data <- file.path(work, "logistic_regression.json")
{
  set.seed(1)
  n <- 1000
  k <- 30
  x <- matrix(rnorm(n * k), n, k)
  beta <- rnorm(k, 0, 0.5)
  y <- rbinom(n, 1, plogis(0.3 + x %*% beta))
  write_json(list(N = n, K = k, x = x, y = as.integer(y)), logistic_data,
             auto_unbox = TRUE, digits = NA, matrix = "rowmajor")
}
posteriors <- c(posteriors, list(
  list(name = "correlated_gaussian_100", program = file.path(here, "stan", "correlated_gaussian.stan"),
       data = gaussian_data),
  list(name = "logistic_regression_31", program = file.path(here, "stan", "logistic_regression.stan"),
       data = logistic_data)))
if (nzchar(only)) {
  wanted <- strsplit(only, ",")[[1]]
  posteriors <- Filter(function(p) p$name %in% wanted, posteriors)
}

# rstan 2.21's stanc reads `real y[T]`, not Stan 2.26's `array[T] real y` of posteriordb's
# programs: the same rewrite as mcmc_ipu's (declarations of one line with plain sizes only,
# which covers the programs here; anything else is refused).
stan_2_21_syntax <- function(program) {
  text <- readLines(program)
  text <- gsub("array\\[([^]\\[]+)\\]\\s+(\\S+)\\s+(\\w+)\\s*;", "\\2 \\3[\\1];", text, perl = TRUE)
  if (any(grepl("array\\s*\\[", text))) stop(program, ": an array declaration this script cannot rewrite")
  out <- file.path(work, basename(program))
  writeLines(text, out)
  out
}

min_bulk_ess <- function(draws) {
  # draws: iterations x chains x columns
  columns <- setdiff(dimnames(draws)[[3]], "lp__")
  min(sapply(columns, function(c) ess_bulk(draws[, , c])))
}

run_rstan <- function(model, data, cores, seed) {
  fit <- sampling(model, data = data, chains = 4, cores = cores, iter = 2000, warmup = 1000,
                  seed = seed, refresh = 0, open_progress = FALSE)
  elapsed <- get_elapsed_time(fit)
  leapfrogs <- sum(sapply(get_sampler_params(fit, inc_warmup = FALSE),
                          function(s) sum(s[, "n_leapfrog__"])))
  list(ess = min_bulk_ess(as.array(fit)), warmup = sum(elapsed[, "warmup"]) / cores,
       sampling = sum(elapsed[, "sample"]) / cores, leapfrogs = leapfrogs)
}

run_tessera <- function(p, cores, seed) {
  prefix <- file.path(work, paste0("tessera_", p$name))
  status <- system2(mcmc_ipu, c("--stan", p$program, "--data", p$data, "--stan-cache", stan_cache,
                                "--chains", "4", "--warmup", "1000", "--draws", "1000",
                                "--seed", seed, "--threads", cores, "--output", prefix,
                                "--formats", "csv", "--no-summary"),
                    stdout = FALSE, stderr = file.path(work, "mcmc_ipu.log"))
  if (status != 0) stop("mcmc_ipu failed on ", p$name, ": see ", file.path(work, "mcmc_ipu.log"))
  chains <- lapply(1:4, function(c) read.csv(paste0(prefix, "_", c, ".csv"), comment.char = "#",
                                             check.names = FALSE))
  columns <- names(chains[[1]])
  draws <- array(NA_real_, c(nrow(chains[[1]]), 4, length(columns)),
                 dimnames = list(NULL, NULL, columns))
  for (c in 1:4) draws[, c, ] <- as.matrix(chains[[c]])
  sampler_columns <- grep("__$", columns, value = TRUE)
  trailer <- readLines(paste0(prefix, "_1.csv"))
  seconds <- function(phase) {
    line <- grep(paste0("seconds \\(", phase, "\\)"), trailer, value = TRUE)
    as.numeric(sub("^#.* ([0-9.eE+-]+) seconds.*$", "\\1", line))
  }
  list(ess = min_bulk_ess(draws[, , setdiff(columns, setdiff(sampler_columns, "lp__")),
                                drop = FALSE]),
       warmup = seconds("Warm-up"), sampling = seconds("Sampling"),
       leapfrogs = sum(draws[, , "n_leapfrog__"]))
}

rows <- list()
for (p in posteriors) {
  data <- read_json(p$data, simplifyVector = TRUE)
  # Compiled once, not timed. Debian's BH package is empty and points to the system Boost.
  model <- stan_model(stan_2_21_syntax(p$program), auto_write = FALSE, boost_lib = "/usr/include")
  # mcmc_ipu's compile into the work folder's cache, also before the timing.
  run_tessera(p, 1, 1)
  for (cores in cores_list) {
    results <- list(stan = list(), tessera = list())
    for (r in seq_len(repeats)) {
      seed <- 1000 + r
      results$stan[[r]] <- run_rstan(model, data, cores, seed)
      results$tessera[[r]] <- run_tessera(p, cores, seed)
    }
    for (side in names(results)) {
      median_of <- function(field) median(sapply(results[[side]], `[[`, field))
      row <- data.frame(posterior = p$name, cores = cores, side = side,
                        min_bulk_ess = median_of("ess"), warmup_s = median_of("warmup"),
                        sampling_s = median_of("sampling"),
                        ess_per_s = median(sapply(results[[side]],
                                                  function(x) x$ess / x$sampling)),
                        us_per_gradient = median(sapply(results[[side]], function(x)
                          1e6 * x$sampling * cores / x$leapfrogs)))
      rows[[length(rows) + 1]] <- row
      print(row, row.names = FALSE)
      flush.console()
    }
  }
}
table <- do.call(rbind, rows)
write.csv(table, file.path(work, "compare_stan.csv"), row.names = FALSE)

cat("\nmedians of", repeats, "repeats; load average at the end:",
    readLines("/proc/loadavg"), "\n\n")
cat("| posterior | cores | Stan ESS/s | Tessera ESS/s | ratio | Stan warm-up s | Tessera warm-up s |",
    "Stan us/grad | Tessera us/grad |\n|---|---|---|---|---|---|---|---|---|\n")
for (p in unique(table$posterior)) for (cores in cores_list) {
  s <- table[table$posterior == p & table$cores == cores & table$side == "stan", ]
  t <- table[table$posterior == p & table$cores == cores & table$side == "tessera", ]
  cat(sprintf("| %s | %d | %.0f | %.0f | %.2f | %.2f | %.2f | %.1f | %.1f |\n", p, cores,
              s$ess_per_s, t$ess_per_s, t$ess_per_s / s$ess_per_s, s$warmup_s, t$warmup_s,
              s$us_per_gradient, t$us_per_gradient))
}
cat("\nTessera's 2-core ESS/s over its 1-core ESS/s:\n")
if (all(c(1, 2) %in% cores_list)) for (p in unique(table$posterior)) {
  one <- table[table$posterior == p & table$cores == 1 & table$side == "tessera", "ess_per_s"]
  two <- table[table$posterior == p & table$cores == 2 & table$side == "tessera", "ess_per_s"]
  cat(sprintf("  %s: %.2f\n", p, two / one))
}
