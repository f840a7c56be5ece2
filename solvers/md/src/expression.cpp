#include "tessera/md/expression.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::md {
namespace {

// Recursive descent, lowest precedence first: || , && , == != , < <= > >= , + - , * / , ^ , unary.
class Parser {
 public:
  Parser(const std::string& text,
         const std::function<std::optional<double>(const std::string&)>& lookup)
      : s_(text), lookup_(lookup) {}

  double parse() {
    const double v = logical_or();
    skip();
    if (i_ != s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError("cannot evaluate '" + s_ + "': " + what + " at character " +
                      std::to_string(i_ + 1));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool take(const char* op) {
    skip();
    const std::size_t n = std::char_traits<char>::length(op);
    if (s_.compare(i_, n, op) != 0) return false;
    i_ += n;
    return true;
  }
  double logical_or() {
    double v = logical_and();
    while (take("||")) v = (logical_and() != 0.0 || v != 0.0) ? 1.0 : 0.0;
    return v;
  }
  double logical_and() {
    double v = equality();
    while (take("&&")) v = (equality() != 0.0 && v != 0.0) ? 1.0 : 0.0;
    return v;
  }
  double equality() {
    double v = relation();
    for (;;) {
      if (take("=="))
        v = v == relation() ? 1.0 : 0.0;
      else if (take("!="))
        v = v != relation() ? 1.0 : 0.0;
      else
        return v;
    }
  }
  double relation() {
    double v = sum();
    for (;;) {
      if (take("<="))
        v = v <= sum() ? 1.0 : 0.0;
      else if (take(">="))
        v = v >= sum() ? 1.0 : 0.0;
      else if (take("<"))
        v = v < sum() ? 1.0 : 0.0;
      else if (take(">"))
        v = v > sum() ? 1.0 : 0.0;
      else
        return v;
    }
  }
  double sum() {
    double v = product();
    for (;;) {
      if (take("+"))
        v += product();
      else if (take("-"))
        v -= product();
      else
        return v;
    }
  }
  double product() {
    double v = power();
    for (;;) {
      if (take("*")) {
        v *= power();
      } else if (take("/")) {
        const double d = power();
        if (d == 0.0) fail("division by zero");
        v /= d;
      } else {
        return v;
      }
    }
  }
  double power() {
    const double base = unary();
    if (take("^")) return std::pow(base, power());  // right associative
    return base;
  }
  double unary() {
    if (take("-")) return -unary();
    if (take("+")) return unary();
    if (take("!")) return unary() == 0.0 ? 1.0 : 0.0;
    return primary();
  }
  double primary() {
    skip();
    if (i_ >= s_.size()) fail("the formula ends too early");
    if (take("(")) {
      const double v = logical_or();
      if (!take(")")) fail("missing ')'");
      return v;
    }
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      char* end = nullptr;
      const double v = std::strtod(s_.c_str() + i_, &end);
      i_ = static_cast<std::size_t>(end - s_.c_str());
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
        ++i_;
      // c_ID[N] and f_ID[N]: the element is part of the name.
      if (i_ < s_.size() && s_[i_] == '[' && i_ - start > 2 && s_[start + 1] == '_' &&
          (s_[start] == 'c' || s_[start] == 'f')) {
        const auto close = s_.find(']', i_);
        if (close == std::string::npos) fail("missing ']'");
        i_ = close + 1;
      }
      const std::string name = s_.substr(start, i_ - start);
      if (take("(")) return function(name);
      if (name == "PI") return M_PI;
      if (auto v = lookup_(name)) return *v;
      i_ = start;
      fail("unknown name '" + name + "'");
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  double function(const std::string& name) {
    std::vector<double> args;
    if (!take(")")) {
      do args.push_back(logical_or());
      while (take(","));
      if (!take(")")) fail("missing ')' after the arguments of " + name);
    }
    auto need = [&](std::size_t n) {
      if (args.size() != n) fail(name + "() takes " + std::to_string(n) + " argument(s)");
    };
    if (name == "sqrt") return need(1), std::sqrt(args[0]);
    if (name == "exp") return need(1), std::exp(args[0]);
    if (name == "ln") return need(1), std::log(args[0]);
    if (name == "log") return need(1), std::log10(args[0]);
    if (name == "abs") return need(1), std::fabs(args[0]);
    if (name == "floor") return need(1), std::floor(args[0]);
    if (name == "ceil") return need(1), std::ceil(args[0]);
    if (name == "round") return need(1), std::round(args[0]);
    if (name == "sin") return need(1), std::sin(args[0]);
    if (name == "cos") return need(1), std::cos(args[0]);
    if (name == "tan") return need(1), std::tan(args[0]);
    if (name == "asin") return need(1), std::asin(args[0]);
    if (name == "acos") return need(1), std::acos(args[0]);
    if (name == "atan") return need(1), std::atan(args[0]);
    if (name == "atan2") return need(2), std::atan2(args[0], args[1]);
    if (name == "min") return need(2), std::fmin(args[0], args[1]);
    if (name == "max") return need(2), std::fmax(args[0], args[1]);
    fail("unknown function '" + name + "'");
  }

  const std::string& s_;
  const std::function<std::optional<double>(const std::string&)>& lookup_;
  std::size_t i_ = 0;
};

}  // namespace

double evaluate(const std::string& formula,
                const std::function<std::optional<double>(const std::string&)>& lookup) {
  return Parser(formula, lookup).parse();
}

}  // namespace tessera::md
