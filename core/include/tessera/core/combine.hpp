// The combine kernel of every reduction in Tessera (Runtime::all_reduce, the reducing
// collectives of core/comm), and its counted work for the cost model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tessera/core/cycle_estimate.hpp"

namespace tessera {

enum class ReduceOp { sum, product, max, min };
enum class DataType { float32, float64, int32, int64, uint64 };

std::size_t size_of(DataType type);

template <class T>
constexpr DataType data_type_of() {
  if constexpr (std::is_same_v<T, float>)
    return DataType::float32;
  else if constexpr (std::is_same_v<T, double>)
    return DataType::float64;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return DataType::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return DataType::int64;
  else {
    static_assert(std::is_same_v<T, std::uint64_t>,
                  "reductions take float, double, std::int32_t, std::int64_t or std::uint64_t");
    return DataType::uint64;
  }
}

namespace detail {
// own[i] = incoming[i] op own[i] if `incoming_first`, else own[i] op incoming[i], for the
// n elements of `type` at the two addresses, which must not overlap. Integers wrap around
// on overflow (two's complement), so no input is undefined behaviour; max and min are
// (a < b ? b : a) and (b < a ? b : a), NaN and signed zeros included.
void combine(DataType type, ReduceOp op, std::byte* own, const std::byte* incoming, std::size_t n,
             bool incoming_first);
}  // namespace detail

// The counted work of combining one element of `type` (two loads, the operation, a store),
// which the cost model prices on the target (cycle_estimate.hpp).
KernelWork combine_work(DataType type);

}  // namespace tessera
