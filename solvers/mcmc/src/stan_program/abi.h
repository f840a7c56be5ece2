/* The C interface between tessera::mcmc and a Stan program's shared library.
 *
 * The library is built by stan_program.cpp from the Stan compiler's C++ and glue.cpp; only
 * these functions cross between them, so that no C++ object, exception or AD tape is shared
 * across the boundary. Functions that can fail write a NUL-terminated message, truncated to
 * error_size bytes, into `error`.
 *
 * Flattened values follow Stan's order: each variable in turn, its elements with the first
 * index fastest (column-major), as Stan's var_context and write_array take them.
 */
#ifndef TESSERA_STAN_PROGRAM_ABI_H
#define TESSERA_STAN_PROGRAM_ABI_H

#include <stddef.h>

#define TESSERA_STAN_ABI_VERSION 1

/* The program's library is built with hidden visibility: these are its only exports. */
#define TESSERA_STAN_EXPORT __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* One variable of the data block. */
typedef struct {
  const char* name;
  int integer; /* nonzero: every value is an integer */
  int ndims;   /* 0 for a scalar */
  const size_t* dims;
  const double* values;
  size_t count; /* the product of dims (1 for a scalar) */
} tessera_stan_variable;

typedef void (*tessera_stan_name_sink)(void* context, const char* name);

/* Outcome of a log-density evaluation. */
enum { TESSERA_STAN_OK = 0, TESSERA_STAN_REJECTED = 1, TESSERA_STAN_FAILED = 2 };

TESSERA_STAN_EXPORT int tessera_stan_abi_version(void);
/* The model on `data`, or NULL with the message (the data block's checks). */
TESSERA_STAN_EXPORT void* tessera_stan_new(const tessera_stan_variable* data, int count,
                                           unsigned seed, char* error, size_t error_size);
TESSERA_STAN_EXPORT void tessera_stan_delete(void* model);
/* The unconstrained dimension. */
TESSERA_STAN_EXPORT int tessera_stan_dimension(const void* model);
/* Stan's flattened names (theta.1): the parameters block's alone, or with the transformed
 * parameters and generated quantities. */
TESSERA_STAN_EXPORT void tessera_stan_names(const void* model, int with_derived,
                                            tessera_stan_name_sink sink, void* context);
/* lp__ (log_prob with the Jacobian, constants dropped as Stan's sampler has them) at x, and
 * its gradient when `gradient` is not NULL. *status: TESSERA_STAN_OK; REJECTED when the
 * program rejects the point (a std::domain_error: reject(), a distribution's argument
 * check); FAILED on any other error. The message goes to `error` unless OK. */
TESSERA_STAN_EXPORT double tessera_stan_log_prob(const void* model, const double* x,
                                                 double* gradient, int* status, char* error,
                                                 size_t error_size);
/* The parameters, transformed parameters and generated quantities at x (as many as the
 * names with derived values), the generated quantities' random numbers from a generator
 * seeded with `seed`. Returns 0, or nonzero with the message. */
TESSERA_STAN_EXPORT int tessera_stan_write_array(const void* model, const double* x, unsigned seed,
                                                 double* values, size_t count, char* error,
                                                 size_t error_size);
/* The x whose parameters block is `values` (as many as the names without derived values).
 * Returns 0, or nonzero with the message (a value outside its support). */
TESSERA_STAN_EXPORT int tessera_stan_unconstrain(const void* model, const double* values,
                                                 size_t count, double* x, char* error,
                                                 size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
