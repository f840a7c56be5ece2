#include "error_report.hpp"

#include "tessera/core/error.hpp"

namespace tessera {

ErrorReport describe_error(const std::exception_ptr& error, int tile) {
  try {
    std::rethrow_exception(error);
  } catch (const TileOutOfMemory& e) {
    return {ErrorReport::tile_memory, e.what()};
  } catch (const ConfigError& e) {
    return {ErrorReport::config, e.what()};
  } catch (const FormatError& e) {
    return {ErrorReport::format, e.what()};
  } catch (const ExchangeError& e) {
    return {ErrorReport::exchange, e.what()};
  } catch (const CommError& e) {
    return {ErrorReport::comm, e.what()};
  } catch (const Error& e) {
    return {ErrorReport::generic, e.what()};
  } catch (const std::exception& e) {
    return {ErrorReport::generic, "tile " + std::to_string(tile) + ": " + e.what()};
  } catch (...) {
    return {ErrorReport::generic,
            "tile " + std::to_string(tile) + ": an exception of unknown type"};
  }
}

void broadcast_error(MPI_Comm comm, int root, ErrorReport& report) {
  long long header[2] = {report.kind, static_cast<long long>(report.message.size())};
  MPI_Bcast(header, 2, MPI_LONG_LONG, root, comm);
  report.kind = static_cast<int>(header[0]);
  report.message.resize(static_cast<std::size_t>(header[1]));
  MPI_Bcast(report.message.data(), static_cast<int>(header[1]), MPI_CHAR, root, comm);
}

namespace {
template <class E>
[[noreturn]] void raise(E error) {
  error.set_collective();
  throw error;
}
}  // namespace

void throw_collective(const ErrorReport& report, int tile, std::size_t tile_budget) {
  switch (report.kind) {
    case ErrorReport::tile_memory:
      raise(TileOutOfMemory(report.message, tile, tile_budget, 0));
    case ErrorReport::config:
      raise(ConfigError(report.message));
    case ErrorReport::format:
      raise(FormatError(report.message));
    case ErrorReport::exchange:
      raise(ExchangeError(report.message));
    case ErrorReport::comm:
      raise(CommError(report.message));
    default:
      raise(Error(report.message));
  }
}

}  // namespace tessera
