#include "tessera/comm/combine.hpp"

#include <cstring>
#include <type_traits>

namespace tessera::comm::detail {
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
void combine_typed(Op op, std::byte* own, const std::byte* incoming, std::size_t n, bool first) {
  switch (op) {
    case Op::sum:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return add(a, b); });
    case Op::product:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return multiply(a, b); });
    case Op::max:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return a < b ? b : a; });
    case Op::min:
      return apply<T>(own, incoming, n, first, [](T a, T b) { return b < a ? b : a; });
  }
}

}  // namespace

void combine(DataType type, Op op, std::byte* own, const std::byte* incoming, std::size_t n,
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
  }
}

}  // namespace tessera::comm::detail
