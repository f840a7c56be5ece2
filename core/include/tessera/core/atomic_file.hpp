// Output files that are either complete or absent.
//
// One convention for every writer. PATH is written under partial_path(PATH) = PATH.part and
// appears under PATH only when complete: flushed, synced to disk (fsync), renamed over PATH in
// one step, and the rename synced (fsync of PATH's folder). A failed write removes PATH.part
// and leaves PATH as it was, with an Error that names the file and the real reason (no space
// left, read-only file system, ...); a crash leaves at most PATH.part behind, never a
// truncated PATH. Before anything is written, check_output_path refuses a PATH that is not a
// regular file (a device, a folder, a FIFO: renaming over it would replace the node, and
// writing to it would lose the output) or whose folder is missing or not writable.
//
// AtomicFile owns one output: it writes PATH.part through its own stream (write, print), or
// guards a PATH.part that a library writes by name (a NetCDF file: AtomicFile::by_name).
// Every write is checked; commit() publishes; destroying an AtomicFile that was not
// committed removes PATH.part. A file that grows across runs (a trajectory, a continued
// NetCDF output) starts as a copy of PATH (Start::copy), so that PATH keeps its earlier
// content until the longer file replaces it. commit_together publishes several files at the
// same moment: all are completed and synced first, then renamed one right after another.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

// PATH.part: where PATH is written before it is published.
std::string partial_path(const std::string& path);

// Throws Error naming PATH unless it can be written as an output: PATH is absent or a regular
// file (not a device, folder or FIFO), and its folder exists and is writable (a read-only
// file system or mount counts as not writable, for root too).
void check_output_path(const std::string& path);

// The reason writing PATH (or PATH.part) failed, for a writer that cannot trust or has no
// errno (a library such as NetCDF, which reports a full disk as an HDF5 error): the folder is
// missing, not writable or read-only, its file system is full, or the file reached the
// process's file size limit (ulimit -f); else `fallback`.
std::string diagnose_write_failure(const std::string& path, const std::string& fallback);

// Syncs PATH.part to disk, renames it to PATH and syncs PATH's folder. Throws Error naming
// both paths (PATH.part is left for the caller to remove).
void publish(const std::string& path);

class AtomicFile {
 public:
  enum class Start {
    empty,  // PATH.part starts empty (PATH, if any, is replaced at commit)
    copy,   // PATH.part starts as a copy of PATH, which must exist (to append to it)
  };

  // Checks PATH (check_output_path) and opens PATH.part for writing through this object.
  // Throws Error naming the file and the reason.
  explicit AtomicFile(std::string path, Start start = Start::empty);
  // For a library that writes PATH.part by name (partial()): checks PATH and, for
  // Start::copy, copies PATH to PATH.part; opens no stream.
  static std::unique_ptr<AtomicFile> by_name(std::string path, Start start = Start::empty);
  // Not committed: closes and removes PATH.part (PATH is left as it was).
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& partial() const { return partial_; }

  // Stream writes, each checked: on failure the stream is closed, PATH.part removed, and an
  // Error thrown that names the file and the reason. Only for an AtomicFile with a stream.
  void write(std::string_view bytes);
  [[gnu::format(printf, 2, 3)]] void print(const char* format, ...);
  // Flushes the stream to the operating system (a crash then keeps it in PATH.part).
  void flush();

  // Throws the Error for a failed write of this file and removes PATH.part: `what` says what
  // failed ("NetCDF error ..."), `reason` why, as the writer knows it (diagnosed when empty).
  [[noreturn]] void fail(const std::string& what, const std::string& reason);

  // Completes PATH.part: flushes and closes the stream and syncs the file to disk. A library
  // writing by name must have closed the file first. Throws Error as write() does.
  void complete();
  // complete(), then publishes PATH.part as PATH (publish). Throws Error, PATH unchanged.
  void commit();
  bool committed() const { return state_ == State::committed; }
  // Completes every file, then renames them one after another and syncs their folders, so
  // that they change together. Throws Error naming the file that failed; files not yet
  // renamed then keep their earlier content.
  static void commit_together(const std::vector<AtomicFile*>& files);

 private:
  enum class State { open, complete, committed, failed };
  struct ByName {};
  AtomicFile(std::string path, Start start, ByName);
  [[noreturn]] void fail_errno(const std::string& what, int err);
  void discard();
  void rename_into_place();

  std::string path_, partial_;
  std::FILE* stream_ = nullptr;
  bool has_stream_ = true;
  State state_ = State::open;
};

// Writes `bytes` to PATH.part and publishes it (AtomicFile). Throws Error naming the path.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace tessera
