data {
  int<lower=0> J;
}
parameters {
  real mu
}
model {
  mu ~ normal(0, 1);
}
