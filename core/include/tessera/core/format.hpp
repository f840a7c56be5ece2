// Small text helpers shared by reports and messages.
#pragma once

#include <cstddef>
#include <string>

namespace tessera {

// "624 KiB", "1.50 MiB", "12 B": binary units, three significant figures.
std::string format_bytes(double bytes);
// "13.1 us", "2.40 ms", "1.00 s".
std::string format_seconds(double seconds);

}  // namespace tessera
