// The 100-dimensional correlated Gaussian of the Stan comparison (mcmc_ipu's built-in
// correlated_gaussian): x ~ N(0, S) with S_ij = rho^|i-j|, written as a Stan user would.
data {
  int<lower=1> N;
  real<lower=-1, upper=1> rho;
}
transformed data {
  matrix[N, N] L;
  {
    matrix[N, N] S;
    for (i in 1:N)
      for (j in 1:N)
        S[i, j] = pow(rho, abs(i - j));
    L = cholesky_decompose(S);
  }
}
parameters {
  vector[N] x;
}
model {
  x ~ multi_normal_cholesky(rep_vector(0, N), L);
}
