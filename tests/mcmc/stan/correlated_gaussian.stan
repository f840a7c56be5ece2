// Tessera's built-in correlated_gaussian: x ~ N(0, S), S_ij = rho^|i - j| (an AR(1) process).
data {
  int<lower=1> N;
  real<lower=-1, upper=1> rho;
}
transformed data {
  matrix[N, N] S;
  for (i in 1:N)
    for (j in 1:N)
      S[i, j] = rho ^ abs(i - j);
}
parameters {
  vector[N] x;
}
model {
  x ~ multi_normal(rep_vector(0, N), S);
}
