// The model of posteriordb's garch11, in Stan 2.21 syntax (as Tessera's built-in).
data {
  int<lower=0> T;
  real y[T];
  real<lower=0> sigma1;
}
parameters {
  real mu;
  real<lower=0> alpha0;
  real<lower=0, upper=1> alpha1;
  real<lower=0, upper=(1 - alpha1)> beta1;
}
model {
  real sigma[T];
  sigma[1] = sigma1;
  for (t in 2:T)
    sigma[t] = sqrt(alpha0 + alpha1 * pow(y[t - 1] - mu, 2) + beta1 * pow(sigma[t - 1], 2));
  y ~ normal(mu, sigma);
}
