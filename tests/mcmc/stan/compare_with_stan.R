# Samples one posterior with Debian's rstan (Stan's own NUTS, diag_e, the defaults) and
# compares the mean and sd of every parameter with Tessera's draws of the same posterior.
#
#   Rscript compare_with_stan.R MODEL.stan DATA.json TESSERA_PREFIX CHAINS WARMUP DRAWS SEED WORK_DIR
#
# TESSERA_PREFIX_1.csv ... are mcmc_ipu's CmdStan CSV files. For each parameter both summaries
# come from the `posterior` package (mean, sd, mcse_mean, mcse_sd, as ArviZ and CmdStan users
# compute them), and the difference is a z-score against the two MCSEs combined. Prints one
# markdown table row per parameter; exits 1 when any |z| exceeds 4.5 (the number of
# parameters compared is ~40, so a correct pair fails by chance with probability ~3e-4).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 8)
  stop("usage: compare_with_stan.R MODEL.stan DATA.json TESSERA_PREFIX CHAINS WARMUP DRAWS SEED WORK_DIR")
stan_file <- args[1]; data_file <- args[2]; prefix <- args[3]
chains <- as.integer(args[4]); warmup <- as.integer(args[5]); draws <- as.integer(args[6])
seed <- as.integer(args[7]); work <- args[8]

# Debian's r-cran-bh has no include folder (its headers are Debian's own Boost in
# /usr/include): give rstan a BH package whose include folder points there.
bh <- file.path(work, "rlib", "BH")
if (!dir.exists(file.path(bh, "include"))) {
  dir.create(file.path(work, "rlib"), recursive = TRUE, showWarnings = FALSE)
  invisible(file.copy(system.file(package = "BH"), file.path(work, "rlib"), recursive = TRUE))
  dir.create(file.path(bh, "include"), showWarnings = FALSE)
  invisible(file.symlink("/usr/include/boost", file.path(bh, "include", "boost")))
}
.libPaths(c(file.path(work, "rlib"), .libPaths()))
suppressPackageStartupMessages({
  library(rstan)
  library(posterior)
  library(jsonlite)
})
rstan_options(auto_write = TRUE)  # the compiled model is kept beside its copy in WORK_DIR

model_copy <- file.path(work, basename(stan_file))
if (!file.exists(model_copy) || !identical(readLines(model_copy), readLines(stan_file)))
  invisible(file.copy(stan_file, model_copy, overwrite = TRUE))
model <- stan_model(model_copy)
data <- fromJSON(data_file)
start <- Sys.time()
fit <- sampling(model, data = data, chains = chains, warmup = warmup, iter = warmup + draws,
                seed = seed, refresh = 0)
stan_seconds <- as.numeric(Sys.time() - start, units = "secs")

# Tessera's CSV names theta.1 (CmdStan's dotted form); posterior names theta[1].
read_tessera <- function(k) {
  d <- read.csv(sprintf("%s_%d.csv", prefix, k), comment.char = "#", check.names = FALSE)
  d <- d[, !grepl("__$", names(d)), drop = FALSE]
  names(d) <- sub("\\.(.*)$", "[\\1]", gsub("\\.([0-9]+)\\.", ".\\1,", names(d)))
  d
}
tessera <- as_draws_array(lapply(seq_len(chains), read_tessera) |>
                            lapply(as_draws_df) |> bind_draws(along = "chain"))
stan <- as_draws_array(fit)
parameters <- intersect(variables(stan), variables(tessera))
parameters <- parameters[parameters != "lp__"]
measures <- c("mean", "sd", "mcse_mean", "mcse_sd", "rhat")
s <- summarise_draws(subset_draws(stan, variable = parameters), measures)
t <- summarise_draws(subset_draws(tessera, variable = parameters), measures)
z_mean <- (t$mean - s$mean) / sqrt(t$mcse_mean^2 + s$mcse_mean^2)
z_sd <- (t$sd - s$sd) / sqrt(t$mcse_sd^2 + s$mcse_sd^2)
posterior_name <- sub("\\.stan$", "", basename(stan_file))
for (i in seq_along(parameters))
  cat(sprintf("| %s | %s | %.4g (%.2g) | %.4g (%.2g) | %+.1f | %.4g (%.2g) | %.4g (%.2g) | %+.1f | %.3f |\n",
              posterior_name, parameters[i], s$mean[i], s$mcse_mean[i], t$mean[i], t$mcse_mean[i],
              z_mean[i], s$sd[i], s$mcse_sd[i], t$sd[i], t$mcse_sd[i], z_sd[i], t$sd[i] / s$sd[i]))
cat(sprintf("# %s: rstan %d x %d draws in %.1f s; largest |z| %.2f (mean), %.2f (sd)\n",
            posterior_name, chains, draws, stan_seconds, max(abs(z_mean)), max(abs(z_sd))))
bad <- parameters[abs(z_mean) > 4.5 | abs(z_sd) > 4.5]
if (length(bad) > 0) {
  cat(sprintf("ERROR: %s: Tessera and Stan disagree beyond 4.5 MCSE on %s\n", posterior_name,
              paste(bad, collapse = ", ")))
  quit(status = 1)
}
