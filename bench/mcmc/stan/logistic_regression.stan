// Logistic regression with K covariates (mcmc_ipu's built-in logistic_regression),
// written as a Stan user would.
data {
  int<lower=1> N;
  int<lower=1> K;
  matrix[N, K] x;
  int<lower=0, upper=1> y[N];
}
parameters {
  real alpha;
  vector[K] beta;
}
model {
  alpha ~ normal(0, 5);
  beta ~ normal(0, 2.5);
  y ~ bernoulli_logit(alpha + x * beta);
}
