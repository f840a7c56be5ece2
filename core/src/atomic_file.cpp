#include "tessera/core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <filesystem>
#include <set>

#include "tessera/core/error.hpp"
#include "tessera/core/format.hpp"

namespace tessera {
namespace {

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

std::string folder_of(const std::string& path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  return folder.empty() ? "." : folder;
}

const char* kind_of(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// fsync of a file or folder by name; 0 or the errno. A folder's file system may not support
// syncing it (EINVAL): nothing more can be done there, and the rename itself stands.
int sync_path(const std::string& path, bool folder) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (folder ? O_DIRECTORY : 0));
  if (fd < 0) return errno;
  int err = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  if (folder && err == EINVAL) err = 0;
  return err;
}

// Writes all of buf to fd; 0 or the errno.
int write_all(int fd, const char* buf, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, buf, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    buf += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

// Copies `from` to `to` (created or truncated); 0 or the errno of the failed call.
int copy_contents(const std::string& from, const std::string& to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return errno;
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    return err;
  }
  int err = 0;
  // copy_file_range lets the file system share or copy blocks itself; where it cannot
  // (another file system type, an old kernel), plain reads and writes do the same.
  bool plain = false;
  for (;;) {
    const ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, std::size_t{1} << 30, 0);
    if (n > 0) continue;
    if (n == 0) break;
    if (errno == EINTR) continue;
    if (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP ||
        errno == EPERM) {
      plain = true;
    } else {
      err = errno;
    }
    break;
  }
  if (plain) {
    std::vector<char> buf(std::size_t{1} << 20);
    for (;;) {
      const ssize_t n = ::read(in, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) err = errno;
      if (n <= 0) break;
      if ((err = write_all(out, buf.data(), static_cast<std::size_t>(n))) != 0) break;
    }
  }
  ::close(in);
  if (::close(out) != 0 && err == 0) err = errno;
  return err;
}

// What errno says, or, where it says little (an I/O error, none at all), what the file system
// shows.
std::string reason_for(const std::string& path, int err) {
  const std::string said = err ? std::strerror(err) : "unknown error";
  return err == 0 || err == EIO ? diagnose_write_failure(path, said) : said;
}

}  // namespace

std::string partial_path(const std::string& path) { return path + ".part"; }

void check_output_path(const std::string& path) {
  if (path.empty()) throw Error("no output file name given");
  const std::string folder = folder_of(path);
  struct stat st {};
  for (const std::string& p : {path, partial_path(path)}) {
    if (::stat(p.c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode))
        throw Error("cannot write " + in_quotes(path) + ": " + in_quotes(p) + " is " +
                    kind_of(st.st_mode) +
                    ", not a regular file; name a regular file (an output is written to " +
                    in_quotes(partial_path(path)) + " and then renamed over its name)");
    } else if (errno != ENOENT) {
      throw Error("cannot write " + in_quotes(path) + ": " + std::strerror(errno));
    }
  }
  if (::stat(folder.c_str(), &st) != 0) {
    if (errno == ENOENT)
      throw Error("cannot write " + in_quotes(path) + ": its folder " + in_quotes(folder) +
                  " does not exist; create it first or check the path");
    throw Error("cannot write " + in_quotes(path) + ": its folder " + in_quotes(folder) +
                " cannot be read: " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    throw Error("cannot write " + in_quotes(path) + ": " + in_quotes(folder) + " is " +
                kind_of(st.st_mode) + ", not a folder");
  // access() answers for the real user, which is the user for these programs; it reports a
  // read-only file system (EROFS) and an immutable folder (EPERM) to root as well.
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw Error("cannot write " + in_quotes(path) + ": its folder " + in_quotes(folder) +
                " is not writable: " + std::strerror(errno));
}

std::string diagnose_write_failure(const std::string& path, const std::string& fallback) {
  const std::string folder = folder_of(path);
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0)
    return std::string(std::strerror(errno)) + " (the folder " + in_quotes(folder) + ")";
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    return std::string(std::strerror(errno)) + " (the folder " + in_quotes(folder) +
           " is not writable)";
  struct statvfs fs {};
  if (::statvfs(folder.c_str(), &fs) == 0) {
    if (fs.f_flag & ST_RDONLY) return std::strerror(EROFS);
    const bool root = ::geteuid() == 0;
    const double free_bytes =
        static_cast<double>(root ? fs.f_bfree : fs.f_bavail) * static_cast<double>(fs.f_frsize);
    // A write fails for want of space before the last block is taken: below 1 MiB free a
    // file system is as good as full for a writer that failed without saying why.
    if (free_bytes < 1024.0 * 1024.0)
      return std::string(std::strerror(ENOSPC)) + " (the file system of " + in_quotes(folder) +
             " has " + format_bytes(free_bytes) + " free)";
    if (fs.f_files > 0 && (root ? fs.f_ffree : fs.f_favail) == 0)
      return std::string(std::strerror(ENOSPC)) + " (the file system of " + in_quotes(folder) +
             " has no free inodes)";
  }
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    for (const std::string& p : {partial_path(path), path}) {
      if (::stat(p.c_str(), &st) == 0 && static_cast<rlim_t>(st.st_size) + 65536 >= limit.rlim_cur)
        return std::string(std::strerror(EFBIG)) + " (" + in_quotes(p) +
               " reached this process's file size limit, ulimit -f, of " +
               format_bytes(static_cast<double>(limit.rlim_cur)) + ")";
    }
  }
  return fallback;
}

void publish(const std::string& path) {
  const std::string part = partial_path(path);
  if (const int err = sync_path(part, false))
    throw Error("cannot publish " + in_quotes(part) + " as " + in_quotes(path) +
                ": syncing it to disk failed: " + reason_for(path, err));
  if (::rename(part.c_str(), path.c_str()) != 0)
    throw Error("cannot rename " + in_quotes(part) + " to " + in_quotes(path) + ": " +
                std::strerror(errno));
  if (const int err = sync_path(folder_of(path), true))
    throw Error("renamed " + in_quotes(part) + " to " + in_quotes(path) +
                " but syncing its folder " + "failed: " + std::strerror(err));
}

AtomicFile::AtomicFile(std::string path, Start start, ByName)
    : path_(std::move(path)), partial_(partial_path(path_)), has_stream_(false) {
  check_output_path(path_);
  if (start == Start::copy) {
    if (const int err = copy_contents(path_, partial_))
      fail_errno(
          "cannot copy " + in_quotes(path_) + " to " + in_quotes(partial_) + " to continue it",
          err);
  }
}

AtomicFile::AtomicFile(std::string path, Start start)
    : AtomicFile(std::move(path), start, ByName{}) {
  has_stream_ = true;
  stream_ = std::fopen(partial_.c_str(), start == Start::copy ? "ab" : "wb");
  if (!stream_) fail_errno("cannot open " + in_quotes(partial_) + " for writing", errno);
}

std::unique_ptr<AtomicFile> AtomicFile::by_name(std::string path, Start start) {
  return std::unique_ptr<AtomicFile>(new AtomicFile(std::move(path), start, ByName{}));
}

AtomicFile::~AtomicFile() {
  if (state_ != State::committed) discard();
}

void AtomicFile::discard() {
  if (stream_) std::fclose(stream_);
  stream_ = nullptr;
  ::unlink(partial_.c_str());
}

void AtomicFile::fail(const std::string& what, const std::string& reason) {
  discard();
  state_ = State::failed;
  struct stat st {};
  const bool earlier = ::stat(path_.c_str(), &st) == 0;
  throw Error(what + ": " +
              (reason.empty() ? diagnose_write_failure(path_, "unknown error") : reason) + "; " +
              in_quotes(path_) + (earlier ? " keeps its earlier content" : " was not written"));
}

void AtomicFile::fail_errno(const std::string& what, int err) {
  fail(what, reason_for(path_, err));
}

void AtomicFile::write(std::string_view bytes) {
  if (!stream_) throw Error("AtomicFile: " + in_quotes(partial_) + " has no open stream");
  if (std::fwrite(bytes.data(), 1, bytes.size(), stream_) != bytes.size())
    fail_errno("cannot write " + in_quotes(partial_), errno);
}

void AtomicFile::print(const char* format, ...) {
  if (!stream_) throw Error("AtomicFile: " + in_quotes(partial_) + " has no open stream");
  std::va_list args;
  va_start(args, format);
  const int n = std::vfprintf(stream_, format, args);
  const int err = errno;
  va_end(args);
  if (n < 0) fail_errno("cannot write " + in_quotes(partial_), err);
}

void AtomicFile::flush() {
  if (stream_ && std::fflush(stream_) != 0)
    fail_errno("cannot write " + in_quotes(partial_), errno);
}

void AtomicFile::complete() {
  if (state_ == State::complete || state_ == State::committed) return;
  if (state_ == State::failed)
    throw Error("AtomicFile: " + in_quotes(partial_) + " failed earlier and cannot be completed");
  if (has_stream_) {
    if (!stream_) throw Error("AtomicFile: " + in_quotes(partial_) + " has no open stream");
    if (std::fflush(stream_) != 0) fail_errno("cannot write " + in_quotes(partial_), errno);
    if (::fsync(::fileno(stream_)) != 0)
      fail_errno("cannot sync " + in_quotes(partial_) + " to disk", errno);
    std::FILE* s = stream_;
    stream_ = nullptr;
    if (std::fclose(s) != 0) fail_errno("cannot close " + in_quotes(partial_), errno);
  } else if (const int err = sync_path(partial_, false)) {
    fail_errno("cannot sync " + in_quotes(partial_) + " to disk", err);
  }
  state_ = State::complete;
}

void AtomicFile::rename_into_place() {
  if (::rename(partial_.c_str(), path_.c_str()) != 0)
    fail_errno("cannot rename " + in_quotes(partial_) + " to " + in_quotes(path_), errno);
  state_ = State::committed;
}

void AtomicFile::commit() { commit_together({this}); }

void AtomicFile::commit_together(const std::vector<AtomicFile*>& files) {
  for (AtomicFile* f : files) f->complete();
  // Nothing slow remains, so that the renames follow one another within microseconds, and a
  // kill lands before or after all of them. A rename over a large file would free its blocks
  // (milliseconds on ext4): the files being replaced stay open until every rename is done,
  // and are freed only then.
  std::vector<int> replaced;
  for (AtomicFile* f : files)
    if (const int fd = ::open(f->path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK); fd >= 0)
      replaced.push_back(fd);
  struct CloseAll {
    std::vector<int>& fds;
    ~CloseAll() {
      for (int fd : fds) ::close(fd);
    }
  } close_all{replaced};
  std::string published;
  for (AtomicFile* f : files) {
    if (f->committed()) continue;
    try {
      f->rename_into_place();
    } catch (const Error& e) {
      throw Error(std::string(e.what()) +
                  (published.empty() ? "" : " (published before it: " + published + ")"));
    }
    published += (published.empty() ? "" : ", ") + in_quotes(f->path_);
  }
  std::set<std::string> folders;
  for (AtomicFile* f : files) folders.insert(folder_of(f->path_));
  for (const std::string& folder : folders)
    if (const int err = sync_path(folder, true))
      throw Error("published " + published + " but syncing the folder " + in_quotes(folder) +
                  " failed: " + std::strerror(err));
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  AtomicFile f(path);
  f.write(bytes);
  f.commit();
}

}  // namespace tessera
