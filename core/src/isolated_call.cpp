#include "tessera/core/isolated_call.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "tessera/core/stop_signal.hpp"

namespace tessera {

namespace {

void write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // the parent is gone: nothing left to tell
    data += w, n -= static_cast<std::size_t>(w);
  }
}

[[noreturn]] void child(const std::function<std::string()>& work, int out) {
  char tag = 'E';
  std::string payload;
  try {
    payload = work();
    tag = 'R';
  } catch (const ConfigError& e) {
    tag = 'C', payload = e.what();
  } catch (const FormatError& e) {
    tag = 'F', payload = e.what();
  } catch (const std::exception& e) {
    tag = 'E', payload = e.what();
  } catch (...) {
    tag = 'E', payload = "an unknown exception";
  }
  write_all(out, &tag, 1);
  write_all(out, payload.data(), payload.size());
  ::_exit(0);
}

// The first line of `text` with a letter in it (sanitizer reports open with a rule of '='),
// at most 200 characters.
std::string first_words(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    for (char c : line)
      if (std::isalpha(static_cast<unsigned char>(c))) return line.substr(0, 200);
    start = end + 1;
  }
  return "";
}

}  // namespace

std::string isolated_call(const std::function<std::string()>& work, const std::string& what,
                          const std::string& hint, double timeout_seconds) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    throw Error("cannot read " + what + ": " + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    throw Error("cannot read " + what + ": " + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    throw Error("cannot read " + what + ": fork failed: " + std::strerror(e));
  }
  if (pid == 0) {
    ::close(out[0]), ::close(err[0]);
    ::dup2(err[1], STDERR_FILENO);
    child(work, out[1]);
  }
  ::close(out[1]), ::close(err[1]);
  std::string result, errors;
  bool timed_out = false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int k = 0; k < 2 && ready > 0; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[k].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
        continue;
      }
      (k == 0 ? result : errors).append(buffer, static_cast<std::size_t>(n));
    }
  }
  for (const pollfd& p : fds)
    if (p.fd >= 0) ::close(p.fd);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string words = first_words(errors);
  const std::string said = words.empty() ? "" : "; it said '" + words + "'";
  if (timed_out)
    throw Error("cannot read " + what + ": its reader did not finish in " +
                std::to_string(static_cast<long long>(timeout_seconds)) +
                " s and was stopped, so the file is probably damaged" + hint);
  if (WIFSIGNALED(status))
    throw Error("cannot read " + what + ": the reader crashed on it (" +
                signal_name(WTERMSIG(status)) + said + "), so the file is damaged" + hint);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || result.empty())
    throw Error("cannot read " + what + ": the reader ended without a result (exit status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + said +
                "), so the file is probably damaged" + hint);
  const char tag = result[0];
  std::string payload = result.substr(1);
  if (tag == 'R') return payload;
  if (tag == 'C') throw ConfigError(payload);
  if (tag == 'F') throw FormatError(payload);
  throw Error(payload);
}

void ByteWriter::put(double v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
void ByteWriter::put(long long v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
void ByteWriter::put(const std::string& s) {
  put(static_cast<long long>(s.size()));
  bytes_ += s;
}
void ByteWriter::put(const std::vector<double>& v) {
  put(static_cast<long long>(v.size()));
  bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

void ByteReader::read(void* out, std::size_t n) {
  if (bytes_.size() - at_ < n) throw Error("isolated_call: a result shorter than its contents");
  std::memcpy(out, bytes_.data() + at_, n);
  at_ += n;
}
double ByteReader::get_double() {
  double v = 0;
  read(&v, sizeof v);
  return v;
}
long long ByteReader::get_integer() {
  long long v = 0;
  read(&v, sizeof v);
  return v;
}
std::string ByteReader::get_string() {
  const auto n = static_cast<std::size_t>(get_integer());
  if (bytes_.size() - at_ < n) throw Error("isolated_call: a result shorter than its contents");
  std::string s = bytes_.substr(at_, n);
  at_ += n;
  return s;
}
std::vector<double> ByteReader::get_vector() {
  const auto n = static_cast<std::size_t>(get_integer());
  if ((bytes_.size() - at_) / sizeof(double) < n)
    throw Error("isolated_call: a result shorter than its contents");
  std::vector<double> v(n);
  read(v.data(), n * sizeof(double));
  return v;
}

}  // namespace tessera
