// posteriordb's eight_schools_noncentered with a posterior predictive draw per school (a
// generated quantity with its own random numbers: mcmc_ipu_stan_same_bits_...) and each
// school's log-likelihood, for LOO (mcmc_ipu_stan_writes_arviz_groups).
data {
  int<lower=0> J;
  array[J] real y;
  array[J] real<lower=0> sigma;
}
parameters {
  vector[J] theta_trans;
  real mu;
  real<lower=0> tau;
}
transformed parameters {
  vector[J] theta = theta_trans * tau + mu;
}
model {
  theta_trans ~ normal(0, 1);
  y ~ normal(theta, sigma);
  mu ~ normal(0, 5);
  tau ~ cauchy(0, 5);
}
generated quantities {
  array[J] real y_rep = normal_rng(theta, sigma);
  vector[J] log_lik;
  for (j in 1:J)
    log_lik[j] = normal_lpdf(y[j] | theta[j], sigma[j]);
}
