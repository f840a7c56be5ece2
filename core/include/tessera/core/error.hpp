// Tessera's exception hierarchy. Every error says what went wrong, where, and
// what to do about it; programs print `ERROR: <what()>` and exit with code 1.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace tessera {

// Base of every error Tessera raises on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // True when every rank raised this same error (the runtime agreed on it), so
  // that one rank may report it for all and no rank needs to abort the others.
  bool collective() const { return collective_; }
  void set_collective() { collective_ = true; }

 private:
  bool collective_ = false;
};

// Invalid configuration: a bad option, an unknown preset, an inconsistent target.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A malformed input file (JSON, data, model), with the file and position in the message.
class FormatError : public Error {
 public:
  using Error::Error;
};

// An exchange plan or message that does not fit the data it moves.
class ExchangeError : public Error {
 public:
  using Error::Error;
};

// MPI failed, or another rank reported an error and this one stops with it.
class CommError : public Error {
 public:
  using Error::Error;
};

// A tile asked for more memory than its budget. what() holds the tile's memory
// report: the budget, the bytes in use, the request and the largest allocations.
class TileOutOfMemory : public Error {
 public:
  TileOutOfMemory(std::string message, int tile, std::size_t budget, std::size_t requested)
      : Error(std::move(message)), tile_(tile), budget_(budget), requested_(requested) {}
  int tile() const { return tile_; }
  std::size_t budget() const { return budget_; }
  std::size_t requested() const { return requested_; }

 private:
  int tile_;
  std::size_t budget_;
  std::size_t requested_;
};

}  // namespace tessera
