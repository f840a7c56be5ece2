#include "tessera/md/fix_balance.hpp"

#include "arguments.hpp"

namespace tessera::md {

FixBalance::FixBalance(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  arguments::need(a.args, 3, "fix ID GROUP balance NREBAL THRESH STYLE ARGS...");
  arguments::integer("fix balance", a.args[0], 0, arguments::int_max);
  arguments::number("fix balance", a.args[1]);
}

}  // namespace tessera::md
