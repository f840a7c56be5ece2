// The C interface (abi.h) of one Stan program: compiled after the Stan compiler's C++ for
// the program, in the same translation unit, into the program's shared library
// (stan_program.cpp builds it). `stan_model` is the generated model class. Every exception
// stops here and becomes a message.
#include <cstring>
#include <exception>
#include <limits>
#include <sstream>
#include <stan/io/array_var_context.hpp>
#include <stan/model/log_prob_grad.hpp>
#include <stan/model/log_prob_propto.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "abi.h"

namespace tessera_stan_glue {

void copy_message(const std::string& text, char* error, size_t error_size) {
  if (error == nullptr || error_size == 0) return;
  const size_t n = std::min(text.size(), error_size - 1);
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}

// This thread's AD tape (STAN_THREADS: one per thread, made on first use; the caller's
// threads are not TBB's).
void use_thread_ad_tape() {
  static thread_local stan::math::ChainableStack tape;
  (void)tape;
}

const stan_model& model_of(const void* model) { return *static_cast<const stan_model*>(model); }

Eigen::VectorXd point(const void* model, const double* x) {
  const Eigen::Index d = static_cast<Eigen::Index>(model_of(model).num_params_r());
  return Eigen::Map<const Eigen::VectorXd>(x, d);
}

}  // namespace tessera_stan_glue

using namespace tessera_stan_glue;

extern "C" {

int tessera_stan_abi_version(void) { return TESSERA_STAN_ABI_VERSION; }

void* tessera_stan_new(const tessera_stan_variable* data, int count, unsigned seed, char* error,
                       size_t error_size) {
  try {
    std::vector<std::string> names_r, names_i;
    std::vector<double> values_r;
    std::vector<int> values_i;
    std::vector<std::vector<size_t>> dims_r, dims_i;
    for (int k = 0; k < count; ++k) {
      const tessera_stan_variable& v = data[k];
      const std::vector<size_t> dims(v.dims, v.dims + v.ndims);
      if (v.integer) {
        names_i.push_back(v.name);
        dims_i.push_back(dims);
        for (size_t i = 0; i < v.count; ++i) values_i.push_back(static_cast<int>(v.values[i]));
      } else {
        names_r.push_back(v.name);
        dims_r.push_back(dims);
        values_r.insert(values_r.end(), v.values, v.values + v.count);
      }
    }
    stan::io::array_var_context context(names_r, values_r, dims_r, names_i, values_i, dims_i);
    std::ostringstream messages;
    return new stan_model(context, seed, &messages);
  } catch (const std::exception& e) {
    copy_message(e.what(), error, error_size);
    return nullptr;
  }
}

void tessera_stan_delete(void* model) { delete static_cast<stan_model*>(model); }

int tessera_stan_dimension(const void* model) {
  return static_cast<int>(model_of(model).num_params_r());
}

void tessera_stan_names(const void* model, int with_derived, tessera_stan_name_sink sink,
                        void* context) {
  std::vector<std::string> names;
  model_of(model).constrained_param_names(names, with_derived != 0, with_derived != 0);
  for (const std::string& name : names) sink(context, name.c_str());
}

double tessera_stan_log_prob(const void* model, const double* x, double* gradient, int* status,
                             char* error, size_t error_size) {
  use_thread_ad_tape();
  try {
    Eigen::VectorXd params = point(model, x);
    double lp;
    if (gradient != nullptr) {
      Eigen::VectorXd g;
      // Stan 2.21's Eigen overload of log_prob_grad leaves the tape to its caller (its
      // samplers go through stan::model::gradient instead): emptied here, or it grows.
      lp = stan::model::log_prob_grad<true, true>(model_of(model), params, g, nullptr);
      stan::math::recover_memory();
      // Every evaluation leaves the tape empty; one that did not would make each later
      // gradient slower than the last.
      if (!stan::math::ChainableStack::instance_->var_stack_.empty())
        throw std::logic_error("the AD tape was not emptied after a gradient");
      Eigen::Map<Eigen::VectorXd>(gradient, g.size()) = g;
    } else {
      lp = stan::model::log_prob_propto<true>(model_of(model), params, nullptr);
    }
    *status = TESSERA_STAN_OK;
    return lp;
  } catch (const std::domain_error& e) {
    *status = TESSERA_STAN_REJECTED;
    copy_message(e.what(), error, error_size);
  } catch (const std::exception& e) {
    *status = TESSERA_STAN_FAILED;
    copy_message(e.what(), error, error_size);
  }
  return -std::numeric_limits<double>::infinity();
}

int tessera_stan_write_array(const void* model, const double* x, unsigned seed, double* values,
                             size_t count, char* error, size_t error_size) {
  try {
    boost::ecuyer1988 rng(seed);
    Eigen::VectorXd params = point(model, x), out;
    model_of(model).write_array(rng, params, out, true, true, nullptr);
    if (static_cast<size_t>(out.size()) != count)
      throw std::logic_error("write_array gave " + std::to_string(out.size()) + " values, not " +
                             std::to_string(count));
    Eigen::Map<Eigen::VectorXd>(values, out.size()) = out;
    return 0;
  } catch (const std::exception& e) {
    copy_message(e.what(), error, error_size);
    return 1;
  }
}

int tessera_stan_unconstrain(const void* model, const double* values, size_t count, double* x,
                             char* error, size_t error_size) {
  try {
    // The parameters block's variables are the leading ones of get_param_names / get_dims.
    std::vector<std::string> names;
    std::vector<std::vector<size_t>> dims;
    model_of(model).get_param_names(names);
    model_of(model).get_dims(dims);
    std::vector<std::string> block_names, flat;
    std::vector<std::vector<size_t>> block_dims;
    model_of(model).constrained_param_names(flat, false, false);
    if (flat.size() != count)
      throw std::invalid_argument("the parameters block has " + std::to_string(flat.size()) +
                                  " values, not " + std::to_string(count));
    size_t taken = 0;
    for (size_t k = 0; k < names.size() && taken < count; ++k) {
      size_t n = 1;
      for (size_t d : dims[k]) n *= d;
      block_names.push_back(names[k]);
      block_dims.push_back(dims[k]);
      taken += n;
    }
    stan::io::array_var_context context(block_names, std::vector<double>(values, values + count),
                                        block_dims);
    std::vector<int> params_i;
    std::vector<double> params_r;
    model_of(model).transform_inits(context, params_i, params_r, nullptr);
    std::copy(params_r.begin(), params_r.end(), x);
    return 0;
  } catch (const std::exception& e) {
    copy_message(e.what(), error, error_size);
    return 1;
  }
}

}  // extern "C"
