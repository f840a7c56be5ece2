#include "tessera/core/combine.hpp"

#include <cstring>
#include <type_traits>

namespace tessera {
namespace {

// Signed integer overflow is undefined; unsigned arithmetic wraps, with the same
// bits as two's complement.
template <class T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
T multiply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// The buffers hold bytes; memcpy reads and writes the values without aliasing
// questions and compiles to plain loads and stores. The two ranges never overlap
// (own is a member's chunk, incoming its receive area), which __restrict tells the
// compiler, so the loops vectorise (SSE/AVX adds, multiplies, max and min: the operand
// order below is what maxps/minps compute, NaN and signed zeros included).
template <class T, class F>
void apply(std::byte* __restrict own, const std::byte* __restrict incoming, std::size_t n,
           bool incoming_first, F f) {
  auto at = [](const std::byte* p, std::size_t i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    return v;
  };
  if (incoming_first) {
    for (std::size_t i = 0; i < n; ++i) {
      const T r = f(at(incoming, i), at(own, i));
      std::memcpy(own + i * sizeof(T), &r, sizeof(T));
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const T r = f(at(own, i), at(incoming, i));
      std::memcpy(own + i * sizeof(T), &r, sizeof(T));
    }
  }
}

template <class T>
void combine_typed(ReduceOp op, std::byte* own, const std::byte* incoming, std::size_t n,
                   bool first) {
  switch (op) {
    case ReduceOp::sum:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return add(a, b); });
    case ReduceOp::product:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return multiply(a, b); });
    case ReduceOp::max:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return a < b ? b : a; });
    case ReduceOp::min:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return b < a ? b : a; });
  }
}

}  // namespace

std::size_t size_of(DataType type) {
  return type == DataType::float32 || type == DataType::int32 ? 4 : 8;
}

KernelWork combine_work(DataType type) {
  // Float vectorises two wide; int32 has no vector ALU; a 64-bit integer is two 32-bit
  // halves with a carry (3 instructions); double is emulated (the IPU has no FP64 unit).
  KernelWork w;
  w.value_bytes = static_cast<int>(size_of(type));
  w.bytes_loaded = 2.0 * w.value_bytes;
  w.bytes_stored = w.value_bytes;
  switch (type) {
    case DataType::float32:
      w.flops_fp32 = 1;
      w.vector_width = 2;
      break;
    case DataType::int32:
      w.int_ops = 1;
      break;
    case DataType::int64:
    case DataType::uint64:
      w.int_ops = 3;
      break;
    case DataType::float64:
      w.flops_fp64 = 1;
      break;
  }
  return w;
}

namespace detail {

void combine(DataType type, ReduceOp op, std::byte* own, const std::byte* incoming, std::size_t n,
             bool incoming_first) {
  switch (type) {
    case DataType::float32:
      return combine_typed<float>(op, own, incoming, n, incoming_first);
    case DataType::float64:
      return combine_typed<double>(op, own, incoming, n, incoming_first);
    case DataType::int32:
      return combine_typed<std::int32_t>(op, own, incoming, n, incoming_first);
    case DataType::int64:
      return combine_typed<std::int64_t>(op, own, incoming, n, incoming_first);
    case DataType::uint64:
      return combine_typed<std::uint64_t>(op, own, incoming, n, incoming_first);
  }
}

}  // namespace detail
}  // namespace tessera
