#include "tessera/mcmc/stan_program.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "../stan_names.hpp"
#include "abi.h"
#include "array_syntax.hpp"
#include "build_settings.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/core/checksum.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/core/shared_input.hpp"

extern char** environ;

namespace tessera::mcmc {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Runs argv[0] (looked up in PATH) with standard output and error into `log`; its exit
// status, or -1 when it cannot be started (errno kept).
int run_command(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  const int started = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) {
    errno = started;
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The program's name as a C++ identifier (the Stan compiler names the model's class after it).
std::string model_name(const fs::path& stan_file) {
  std::string name = stan_file.stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "model_" + name;
  return name;
}

// rstan::stanc's C++ for the program (its text `program`, from `stan_file`), or ConfigError
// with the Stan compiler's message.
std::string translate(const std::string& program, const fs::path& stan_file,
                      const std::string& name, const fs::path& work) {
  int rewrites = 0;
  const fs::path source = work / (name + ".stan");
  write_file_atomically(source.string(), with_old_array_syntax(program, rewrites));
  const fs::path cpp = work / (name + ".generated.cpp"), message = work / "stanc_error.txt",
                 log = work / "stanc.log";
  // rstan::stanc prints the parser's message (the line, column and an excerpt) and then
  // stops with "failed to parse ... due to the above error", which goes to a file of its own.
  const std::string script =
      "a <- commandArgs(TRUE); r <- tryCatch(rstan::stanc(file = a[1], model_name = a[2], "
      "verbose = FALSE), error = function(e) { writeLines(conditionMessage(e), a[4]); "
      "quit(status = 3) }); writeLines(r$cppcode, a[3])";
  const int status = run_command(
      {"Rscript", "--vanilla", "-e", script, source.string(), name, cpp.string(), message.string()},
      log);
  if (status == -1)
    throw ConfigError(std::string("cannot run Rscript, which translates Stan programs (") +
                      std::strerror(errno) + "); scripts/setup installs R and rstan");
  if (status == 3) {
    // The printed message, without the notes R prints while loading rstan.
    std::istringstream printed(read_text(log));
    std::string text, line;
    while (std::getline(printed, line))
      if (line.rfind("code for methods in class", 0) != 0) text += line + "\n";
    if (text.find_first_not_of(" \n") == std::string::npos) text = read_text(message);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    // The line numbers are the original program's; the compiler's excerpt shows its lines
    // as rewritten.
    std::string hint =
        "\n(the Stan compiler here is Stan 2.21's, from Debian's rstan; syntax newer than "
        "Stan 2.21 is refused";
    hint += rewrites > 0 ? ", except `array[N] real y`, which was read as `real y[N]`)" : ")";
    throw ConfigError("Stan program '" + stan_file.string() + "' does not translate:\n" + text +
                      hint);
  }
  if (status != 0)
    throw ConfigError("the Stan compiler (rstan::stanc through Rscript) failed with status " +
                      std::to_string(status) + ": " + read_text(log) +
                      "scripts/setup installs r-cran-rstan");
  return read_text(cpp);
}

// The C++ compiler's command for `source` into `library`.
std::vector<std::string> compile_command(const fs::path& source, const fs::path& library) {
  std::vector<std::string> argv{kStanCompiler, "-std=c++17",          "-O2", "-fPIC",
                                "-shared",     "-fvisibility=hidden", "-w"};
  for (const char* flag : kStanCompileFlags) argv.emplace_back(flag);
  argv.push_back("-I" + source.parent_path().string());
  argv.push_back(source.string());
  argv.push_back("-o");
  argv.push_back(library.string());
  for (const char* flag : kStanLinkFlags) argv.emplace_back(flag);
  return argv;
}

// The first lines that hold "error" in a compiler's log, or its first lines.
std::string first_errors(const std::string& log) {
  std::istringstream in(log);
  std::string line, out;
  int kept = 0;
  while (std::getline(in, line) && kept < 8)
    if (line.find("error") != std::string::npos) {
      out += line + "\n";
      ++kept;
    }
  return out.empty() ? log.substr(0, 2000) : out;
}

}  // namespace

std::string stan_cache_directory(const StanBuildOptions& options) {
  if (!options.cache_directory.empty()) return options.cache_directory;
  if (const char* dir = std::getenv("TESSERA_STAN_CACHE"); dir && *dir) return dir;
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir && *dir)
    return (fs::path(dir) / "tessera" / "stan").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "tessera" / "stan").string();
  throw ConfigError("no cache folder for compiled Stan programs: set TESSERA_STAN_CACHE");
}

std::string build_stan_program(const std::string& stan_file, const StanBuildOptions& options) {
  if (!fs::is_regular_file(stan_file))
    throw ConfigError("Stan program '" + stan_file + "' does not exist");
  const std::string name = model_name(stan_file);
  const std::string program = read_text(stan_file);
  const fs::path cache = stan_cache_directory(options);
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec)
    throw ConfigError("cannot make the Stan program cache '" + cache.string() +
                      "': " + ec.message());
  // The key: the program and everything its library is built from.
  std::string key = program + '\0' + kStanGlueSource + '\0' + kStanAbiSource + '\0';
  for (const std::string& a : compile_command("model.cpp", "model.so")) key += a + ' ';
  const std::string stem = name + "-" + std::to_string(crc32(key));
  const fs::path library = cache / (stem + ".so"), key_file = cache / (stem + ".key");
  if (fs::exists(library) && fs::exists(key_file) && read_text(key_file) == key)
    return library.string();

  // Built in a folder of its own, then published: concurrent builds of one program each
  // finish their own copy and the last rename wins.
  const fs::path work = cache / (stem + ".build." + std::to_string(getpid()));
  fs::create_directories(work);
  if (options.progress) *options.progress << "Translating Stan program " << stan_file << std::endl;
  std::string cpp;
  try {
    cpp = translate(program, stan_file, name, work);
  } catch (const Error&) {
    fs::remove_all(work, ec);  // the message has stanc's error; a compile error keeps its log
    throw;
  }
  // Stan 2.21's generated models keep the statement being run in a static for error
  // messages; chains on threads each need their own.
  const std::string shared_static = "static int current_statement_begin__;";
  if (const std::size_t at = cpp.find(shared_static); at != std::string::npos)
    cpp.replace(at, shared_static.size(), "static thread_local int current_statement_begin__;");
  write_file_atomically((work / "abi.h").string(), kStanAbiSource);
  write_file_atomically((work / "model.cpp").string(), cpp + "\n" + kStanGlueSource);
  if (options.progress)
    *options.progress << "Compiling Stan program " << stan_file << " (once; about a minute)"
                      << std::endl;
  const fs::path built = work / "model.so", log = work / "compile.log";
  const int status = run_command(compile_command(work / "model.cpp", built), log);
  if (status == -1)
    throw ConfigError("cannot run the C++ compiler " + std::string(kStanCompiler) + ": " +
                      std::strerror(errno));
  if (status != 0)
    throw ConfigError("Stan program '" + stan_file + "' translated, but its C++ does not " +
                      "compile (the full log is " + log.string() + "):\n" +
                      first_errors(read_text(log)));
  fs::rename(built, library);
  write_file_atomically(key_file.string(), key);
  fs::remove_all(work, ec);
  return library.string();
}

namespace {

// One data variable flattened for the program: dimensions, values column-major.
struct Variable {
  std::string name;
  bool integer = true;
  std::vector<std::size_t> dims;
  std::vector<double> values;
};

Variable flatten(const std::string& name, const nlohmann::json& value, const std::string& source) {
  Variable v;
  v.name = name;
  const auto fail = [&](const std::string& what) {
    throw FormatError("data '" + source + "': field '" + name + "' " + what);
  };
  // Dimensions from the first elements; every element is then checked against them.
  for (const nlohmann::json* at = &value; at->is_array(); at = &(*at)[0]) {
    v.dims.push_back(at->size());
    if (at->empty()) break;
  }
  std::size_t count = 1;
  for (std::size_t d : v.dims) count *= d;
  std::vector<double> row_major;
  row_major.reserve(count);
  const std::function<void(const nlohmann::json&, std::size_t)> walk = [&](const nlohmann::json& x,
                                                                           std::size_t depth) {
    if (depth == v.dims.size()) {
      if (!x.is_number()) fail("holds " + x.dump() + ", which is not a number");
      if (!x.is_number_integer()) v.integer = false;
      row_major.push_back(x.get<double>());
      return;
    }
    if (!x.is_array() || x.size() != v.dims[depth])
      fail("is not a rectangular array (dimension " + std::to_string(depth + 1) + " has " +
           std::to_string(v.dims[depth]) + " elements in its first row)");
    for (const nlohmann::json& e : x) walk(e, depth + 1);
  };
  walk(value, 0);
  // Stan reads arrays with the first index fastest.
  v.values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t rest = i, column_major = 0, stride = 1;
    std::vector<std::size_t> index(v.dims.size());
    for (std::size_t k = v.dims.size(); k-- > 0;) {
      index[k] = rest % v.dims[k];
      rest /= v.dims[k];
    }
    for (std::size_t k = 0; k < v.dims.size(); ++k) {
      column_major += index[k] * stride;
      stride *= v.dims[k];
    }
    v.values[column_major] = row_major[i];
  }
  return v;
}

// The library's functions (abi.h).
struct Library {
  void* handle = nullptr;
  decltype(&tessera_stan_new) create;
  decltype(&tessera_stan_delete) destroy;
  decltype(&tessera_stan_dimension) dimension;
  decltype(&tessera_stan_names) names;
  decltype(&tessera_stan_log_prob) log_prob;
  decltype(&tessera_stan_write_array) write_array;
  decltype(&tessera_stan_unconstrain) unconstrain;
  ~Library() {
    if (handle) dlclose(handle);
  }
};

std::shared_ptr<Library> open_library(const std::string& path) {
  auto lib = std::make_shared<Library>();
  lib->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle)
    throw ConfigError("cannot load the Stan program's library: " + std::string(dlerror()));
  const auto symbol = [&](const char* name) {
    void* f = dlsym(lib->handle, name);
    if (!f)
      throw ConfigError("the Stan program's library '" + path + "' lacks " + name +
                        "; delete it to have it built again");
    return f;
  };
  const auto version = reinterpret_cast<int (*)()>(symbol("tessera_stan_abi_version"));
  if (version() != TESSERA_STAN_ABI_VERSION)
    throw ConfigError("the Stan program's library '" + path + "' was built for another Tessera");
  lib->create = reinterpret_cast<decltype(lib->create)>(symbol("tessera_stan_new"));
  lib->destroy = reinterpret_cast<decltype(lib->destroy)>(symbol("tessera_stan_delete"));
  lib->dimension = reinterpret_cast<decltype(lib->dimension)>(symbol("tessera_stan_dimension"));
  lib->names = reinterpret_cast<decltype(lib->names)>(symbol("tessera_stan_names"));
  lib->log_prob = reinterpret_cast<decltype(lib->log_prob)>(symbol("tessera_stan_log_prob"));
  lib->write_array =
      reinterpret_cast<decltype(lib->write_array)>(symbol("tessera_stan_write_array"));
  lib->unconstrain =
      reinterpret_cast<decltype(lib->unconstrain)>(symbol("tessera_stan_unconstrain"));
  return lib;
}

constexpr std::size_t kMessageSize = 4096;

class StanProgramModel final : public Model {
 public:
  StanProgramModel(std::shared_ptr<Library> lib, void* model, std::string name)
      : lib_(std::move(lib)), model_(model), name_(std::move(name)) {
    dimension_ = lib_->dimension(model_);
    names_ = collect_names(true);
    block_names_ = collect_names(false);
  }
  ~StanProgramModel() override { lib_->destroy(model_); }
  std::string name() const override { return name_; }
  int dimension() const override { return dimension_; }
  std::vector<std::string> parameter_names() const override { return names_; }
  std::vector<std::string> parameter_block_names() const override { return block_names_; }
  double log_density(const Vector& x) const override { return evaluate(x, nullptr); }
  double log_density_gradient(const Vector& x, Vector& gradient) const override {
    gradient.resize(dimension_);
    return evaluate(x, gradient.data());
  }
  double autodiff_log_density_gradient(const Vector& x, Vector& gradient) const override {
    return log_density_gradient(x, gradient);
  }
  // The generated quantities' random numbers from a fixed seed: samplers call generate().
  std::vector<double> constrain(const Vector& x) const override { return write(x, 0); }
  std::vector<double> generate(const Vector& x, RngEngine& rng) const override {
    return write(x, static_cast<unsigned>(rng()));
  }
  std::vector<double> parameter_block_values(const Vector& x) const override {
    std::vector<double> values = write(x, 0);
    values.resize(block_names_.size());
    return values;
  }
  Vector unconstrain(std::span<const double> values) const override {
    if (values.size() != block_names_.size())
      throw ConfigError(name_ + ": unconstrain() takes the " + std::to_string(block_names_.size()) +
                        " values of the parameters block, not " + std::to_string(values.size()));
    Vector x(dimension_);
    char message[kMessageSize] = "";
    if (lib_->unconstrain(model_, values.data(), values.size(), x.data(), message,
                          sizeof message) != 0) {
      // Stan's message: "Exception: Error transforming variable tau: lb_free: Lower bounded
      // variable is -1, but must be greater than or equal to 0  (in 'model_x' at line 8)".
      std::string text = message;
      const std::string prefix = "Error transforming variable ";
      const std::size_t at = text.find(prefix);
      if (at != std::string::npos) {
        text = text.substr(at + prefix.size());
        text = text.substr(0, text.find("  (in '"));
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
          text.pop_back();
        const std::size_t colon = text.find(": ");
        if (colon != std::string::npos)
          throw SupportError(text.substr(0, colon),
                             "lies outside its support (" + text.substr(colon + 2) + ")");
      }
      throw ConfigError(name_ + ": " + text);
    }
    return x;
  }

 private:
  std::vector<std::string> collect_names(bool with_derived) const {
    std::vector<std::string> names;
    lib_->names(
        model_, with_derived ? 1 : 0,
        [](void* context, const char* n) {
          static_cast<std::vector<std::string>*>(context)->push_back(bracketed(n));
        },
        &names);
    return names;
  }
  double evaluate(const Vector& x, double* gradient) const {
    int status = TESSERA_STAN_OK;
    char message[kMessageSize] = "";
    const double lp = lib_->log_prob(model_, x.data(), gradient, &status, message, sizeof message);
    if (status == TESSERA_STAN_FAILED)
      throw Error("Stan program " + name_ + " failed: " + std::string(message));
    if (status == TESSERA_STAN_REJECTED) {
      if (gradient) Eigen::Map<Vector>(gradient, dimension_).setZero();
      return -std::numeric_limits<double>::infinity();
    }
    return lp;
  }
  std::vector<double> write(const Vector& x, unsigned seed) const {
    std::vector<double> values(names_.size());
    char message[kMessageSize] = "";
    if (lib_->write_array(model_, x.data(), seed, values.data(), values.size(), message,
                          sizeof message) != 0)
      throw Error("Stan program " + name_ +
                  ": its generated quantities failed: " + std::string(message));
    return values;
  }

  std::shared_ptr<Library> lib_;
  void* model_;
  std::string name_;
  int dimension_;
  std::vector<std::string> names_, block_names_;
};

}  // namespace

std::unique_ptr<Model> open_stan_program(const std::string& library, const std::string& name,
                                         const nlohmann::json& data,
                                         const std::string& data_source) {
  if (!data.is_object())
    throw FormatError("data '" + data_source + "' for Stan program " + name +
                      " is not a JSON object");
  std::vector<Variable> variables;
  for (const auto& [field, value] : data.items())
    variables.push_back(flatten(field, value, data_source));
  std::vector<tessera_stan_variable> view;
  for (const Variable& v : variables)
    view.push_back({v.name.c_str(), v.integer ? 1 : 0, static_cast<int>(v.dims.size()),
                    v.dims.data(), v.values.data(), v.values.size()});
  std::shared_ptr<Library> lib = open_library(library);
  char message[kMessageSize] = "";
  void* model = lib->create(view.data(), static_cast<int>(view.size()), 0, message, sizeof message);
  if (!model)
    throw ConfigError("Stan program " + name + " refuses the data '" + data_source +
                      "': " + message);
  return std::make_unique<StanProgramModel>(std::move(lib), model, name);
}

std::unique_ptr<Model> load_stan_program(MPI_Comm comm, const std::string& stan_file,
                                         const nlohmann::json& data, const std::string& data_source,
                                         const StanBuildOptions& options) {
  const std::string library =
      produce_on_root(comm, [&] { return build_stan_program(stan_file, options); });
  return open_stan_program(library, model_name(stan_file), data, data_source);
}

}  // namespace tessera::mcmc
