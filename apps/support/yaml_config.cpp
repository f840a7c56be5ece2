#include "yaml_config.hpp"

#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tessera::apps {
namespace {

// CLI11's configuration formatter, reading YAML with yaml-cpp and checking the keys against
// the program's options (CLI11's own check would call the file INI).
class YamlConfig final : public CLI::Config {
 public:
  explicit YamlConfig(const CLI::App* app) : app_(app) {}

  std::string to_config(const CLI::App* app, bool default_also, bool, std::string) const override {
    std::ostringstream out;
    for (const CLI::Option* option : app->get_options()) {
      const std::string& name = option->get_single_name();
      if (option->get_lnames().empty() || name == "help" || name == "config") continue;
      std::vector<std::string> values = option->reduced_results();
      if (values.empty() && default_also && !option->get_default_str().empty())
        values = {option->get_default_str()};
      if (values.empty()) continue;
      YAML::Emitter line;
      line << YAML::Flow << YAML::BeginMap << YAML::Key << name << YAML::Value;
      if (values.size() == 1)
        line << values.front();
      else
        line << values;
      line << YAML::EndMap;
      std::string text = line.c_str();  // {name: value}
      out << text.substr(1, text.size() - 2) << "\n";
    }
    return out.str();
  }

  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    const std::string file = app_->get_config_ptr()->as<std::string>();
    YAML::Node root;
    try {
      root = YAML::Load(input);
    } catch (const YAML::Exception& e) {
      throw CLI::ConfigError(file + ": not YAML: " + e.what());
    }
    if (root.IsNull()) return {};
    if (!root.IsMap()) throw CLI::ConfigError(file + ": not a mapping of option names to values");
    std::vector<CLI::ConfigItem> items;
    for (const auto& entry : root) {
      const auto line = std::to_string(entry.first.Mark().line + 1);
      if (!entry.first.IsScalar())
        throw CLI::ConfigError(file + ":" + line + ": a key must be an option name");
      const std::string key = entry.first.as<std::string>();
      if (key == "config" || key == "help" || app_->get_option_no_throw("--" + key) == nullptr)
        throw CLI::ConfigError(file + ":" + line + ": '" + key +
                               "' is not an option of this program (see --help)");
      CLI::ConfigItem item;
      item.name = key;
      const YAML::Node& value = entry.second;
      if (value.IsScalar()) {
        item.inputs.push_back(value.as<std::string>());
      } else if (value.IsSequence()) {
        for (const auto& element : value) {
          if (!element.IsScalar())
            throw CLI::ConfigError(file + ":" + line + ": '" + key +
                                   "' takes a value or a list of values, not nested lists");
          item.inputs.push_back(element.as<std::string>());
        }
      } else {
        throw CLI::ConfigError(file + ":" + line + ": '" + key +
                               "' takes a value or a list of values, not " +
                               (value.IsMap() ? "a mapping" : "nothing"));
      }
      items.push_back(std::move(item));
    }
    return items;
  }

 private:
  const CLI::App* app_;
};

}  // namespace

void add_yaml_config_option(CLI::App& app) {
  app.set_config("--config", "",
                 "Read options from this YAML file: long option names without the dashes as "
                 "keys (e.g. 'days: 10', 'pressure-levels: [850, 500]'); the command line wins");
  app.config_formatter(std::make_shared<YamlConfig>(&app));
}

}  // namespace tessera::apps
