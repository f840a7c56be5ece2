// AtomicFile and the output-file convention (tessera/core/atomic_file.hpp): a file under its
// name is complete or absent, a failed write leaves the published file as it was, and paths
// that must not be written over (devices, folders) are refused before anything is written.
// Write failures come from the file size limit (RLIMIT_FSIZE, EFBIG), which needs no
// privilege; the md and weather fault tests fill real file systems.
#include "tessera/core/atomic_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool exists(const std::string& path) { return std::filesystem::exists(path); }

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("tessera_atomic_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

// Writes beyond `bytes` fail with EFBIG (SIGXFSZ ignored) while it lives.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_{};
  void (*previous_)(int) = nullptr;
};

TEST_F(AtomicFileTest, CommitPublishesTheWholeFileAndLeavesNoPart) {
  const std::string p = path("out.txt");
  AtomicFile f(p);
  f.write("hello ");
  f.print("%d %s\n", 42, "world");
  EXPECT_FALSE(exists(p));
  EXPECT_TRUE(exists(p + ".part"));
  f.commit();
  EXPECT_TRUE(f.committed());
  EXPECT_EQ(read(p), "hello 42 world\n");
  EXPECT_FALSE(exists(p + ".part"));
}

TEST_F(AtomicFileTest, WithoutCommitThePartIsRemovedAndThePublishedFileKept) {
  const std::string p = path("out.txt");
  write_file_atomically(p, "old\n");
  {
    AtomicFile f(p);
    f.write("new and unfinished");
    f.flush();
  }
  EXPECT_EQ(read(p), "old\n");
  EXPECT_FALSE(exists(p + ".part"));
}

TEST_F(AtomicFileTest, AFailedWriteKeepsThePublishedFileAndSaysWhy) {
  const std::string p = path("out.txt");
  write_file_atomically(p, "old\n");
  try {
    FileSizeLimit limit(4096);
    AtomicFile f(p);
    f.write(std::string(1 << 16, 'x'));
    f.commit();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot write '" + p + ".part': File too large"));
    EXPECT_THAT(e.what(), HasSubstr("'" + p + "' keeps its earlier content"));
  }
  EXPECT_EQ(read(p), "old\n");
  EXPECT_FALSE(exists(p + ".part"));
}

TEST_F(AtomicFileTest, AFirstFailedWriteSaysNothingWasWritten) {
  const std::string p = path("never.txt");
  try {
    FileSizeLimit limit(4096);
    write_file_atomically(p, std::string(1 << 16, 'x'));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("File too large"));
    EXPECT_THAT(e.what(), HasSubstr("'" + p + "' was not written"));
  }
  EXPECT_FALSE(exists(p));
  EXPECT_FALSE(exists(p + ".part"));
}

TEST_F(AtomicFileTest, DevicesFoldersAndMissingFoldersAreRefusedBeforeAnyWrite) {
  try {
    write_file_atomically("/dev/null", "x");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot write '/dev/null': '/dev/null' is a character device, "
                                    "not a regular file"));
  }
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(exists("/dev/null.part"));
  try {
    check_output_path(dir_.string());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a folder, not a regular file"));
  }
  try {
    AtomicFile f(path("missing/out.txt"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("its folder '" + path("missing") + "' does not exist"));
  }
}

TEST_F(AtomicFileTest, ACopyContinuesThePublishedFileWhichStaysUntilCommit) {
  const std::string p = path("traj.txt");
  write_file_atomically(p, "frame 1\n");
  AtomicFile f(p, AtomicFile::Start::copy);
  f.write("frame 2\n");
  f.flush();
  EXPECT_EQ(read(p), "frame 1\n");
  f.commit();
  EXPECT_EQ(read(p), "frame 1\nframe 2\n");
}

TEST_F(AtomicFileTest, CommitTogetherPublishesEveryFile) {
  const std::string a = path("a.txt"), b = path("b.txt");
  AtomicFile fa(a), fb(b);
  fa.write("a");
  fb.write("b");
  AtomicFile::commit_together({&fa, &fb});
  EXPECT_EQ(read(a), "a");
  EXPECT_EQ(read(b), "b");
  EXPECT_FALSE(exists(a + ".part"));
  EXPECT_FALSE(exists(b + ".part"));
}

TEST_F(AtomicFileTest, ByNameGuardsAFileALibraryWrites) {
  const std::string p = path("lib.dat");
  {
    auto f = AtomicFile::by_name(p);
    std::ofstream(f->partial()) << "abandoned";
  }
  EXPECT_FALSE(exists(p));
  EXPECT_FALSE(exists(p + ".part"));
  auto f = AtomicFile::by_name(p);
  std::ofstream(f->partial()) << "done";
  f->commit();
  EXPECT_EQ(read(p), "done");
}

TEST_F(AtomicFileTest, DiagnosisNamesAMissingFolder) {
  EXPECT_THAT(diagnose_write_failure(path("gone/x.nc"), "NetCDF: HDF error"),
              HasSubstr("No such file or directory"));
}

}  // namespace
}  // namespace tessera
