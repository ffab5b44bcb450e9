// `gpulint completion bash|zsh`: shell completion scripts, written from the
// commands' own option tables (Command::options), so a new option is offered
// the day it is parsed. The packages install both (cmake/package.cmake).
#include <ostream>
#include <string>

#include "lint/cli/commands.h"

namespace gpulint {
namespace {

constexpr std::string_view kHelp = R"(Usage: gpulint completion bash|zsh

Prints a shell completion script for gpulint (and kubectl-gpulint): the
commands, each command's options, the values of options that take one of a
few (--format, --fail-on, ...), rule names for explain, and file names
elsewhere. The .deb and the tarball ship both scripts
(share/bash-completion/completions/gpulint, share/zsh/vendor-completions/_gpulint).

Examples:
  source <(gpulint completion bash)                 # this bash session
  gpulint completion bash > ~/.local/share/bash-completion/completions/gpulint
  gpulint completion zsh > "${fpath[1]}/_gpulint"   # then: compinit
)";

std::string Words(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view w : words) out += (out.empty() ? "" : " ") + std::string(w);
  return out;
}

// The commands by name, with those the main help lists ("help" included).
std::vector<std::string_view> CommandNames() {
  std::vector<std::string_view> names;
  for (const Command* c : AllCommands()) names.push_back(c->name);
  return names;
}

std::string Bash() {
  std::string out = R"(# bash completion for gpulint, written by 'gpulint completion bash' from its
# commands' option tables.
_gpulint() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  # --opt=value: bash splits at '=' (COMP_WORDBREAKS).
  if [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
    prev=${COMP_WORDS[COMP_CWORD-2]}
  elif [[ $cur == = ]]; then
    cur=
  fi
  local commands=")" + Words(CommandNames()) +
                    R"("
  if [[ $COMP_CWORD -eq 1 ]]; then
    # A command, or a file: 'gpulint FILE...' is check.
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands" -- "$cur") $(compgen -f -- "$cur"))
    fi
    return 0
  fi
  local cmd=${COMP_WORDS[1]} options= valued= choices= words=
  # 'gpulint FILE...' is check.
  [[ " $commands " == *" $cmd "* ]] || cmd=check
  case $cmd in
)";
  for (const Command* c : AllCommands()) {
    std::string options = "--help", valued, choices;
    for (const OptionSpec& o : c->options) {
      options += " " + std::string(o.name);
      if (!o.short_name.empty()) options += " " + std::string(o.short_name);
      if (!o.takes_value) continue;
      std::string names = std::string(o.name) +
                          (o.short_name.empty() ? "" : "|" + std::string(o.short_name));
      if (o.choices.empty()) {
        valued += (valued.empty() ? "" : "|") + names;
      } else {
        choices += "        " + names + ") COMPREPLY=($(compgen -W \"" +
                   std::string(o.choices) + "\" -- \"$cur\")); return 0 ;;\n";
      }
    }
    std::vector<std::string_view> words = c->subcommands;
    if (c->name == "help") words = CommandNames();
    out += "    " + std::string(c->name) + ")\n      options=\"" + options + "\"\n";
    if (!words.empty()) out += "      words=\"" + Words(words) + "\"\n";
    if (!valued.empty() || !choices.empty()) {
      out += "      case $prev in\n" + choices;
      if (!valued.empty())
        out += "        " + valued + ") COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n";
      out += "      esac\n";
    }
    out += "      ;;\n";
  }
  out += R"(  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif [[ -n $words && $COMP_CWORD -eq 2 ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -o filenames -o bashdefault -F _gpulint gpulint kubectl-gpulint
)";
  return out;
}

// A zsh _arguments spec: '(-q --quiet)'{-q,--quiet}'[...]' without the
// descriptions the tables do not hold.
std::string ZshSpec(const OptionSpec& o) {
  std::string value;
  if (o.takes_value) {
    value = "=:value:" + (o.choices.empty() ? std::string("_files")
                                             : "(" + std::string(o.choices) + ")");
  }
  std::string repeat = o.repeatable || !o.takes_value ? "*" : "";
  if (o.short_name.empty()) return "'" + repeat + std::string(o.name) + value + "'";
  // The short form takes its value in the next word, or joined (-j2).
  std::string short_value = value.empty() ? "" : "+" + value.substr(1);
  return "'" + repeat + std::string(o.short_name) + short_value + "' '" + repeat +
         std::string(o.name) + value + "'";
}

std::string Zsh() {
  std::string out = R"(#compdef gpulint kubectl-gpulint
# zsh completion for gpulint, written by 'gpulint completion zsh' from its
# commands' option tables.
_gpulint() {
  local -a commands
  commands=()" + Words(CommandNames()) +
                    R"()
  if (( CURRENT == 2 )); then
    _alternative 'commands:command:compadd -a commands' 'files:file:_files'
    return
  fi
  local cmd=$words[2]
  if (( ${commands[(Ie)$cmd]} )); then
    shift words
    (( CURRENT-- ))
  else
    cmd=check  # 'gpulint FILE...' is check
  fi
  case $cmd in
)";
  for (const Command* c : AllCommands()) {
    std::vector<std::string_view> words = c->subcommands;
    if (c->name == "help") words = CommandNames();
    out += "    " + std::string(c->name) + ")\n      _arguments -s -S '(- *)--help'";
    for (const OptionSpec& o : c->options) out += " \\\n        " + ZshSpec(o);
    out += words.empty() ? " \\\n        '*:file:_files'"
                         : " \\\n        '1:word:(" + Words(words) + ")' '*:file:_files'";
    out += "\n      ;;\n";
  }
  out += R"(  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _gpulint "$@"
else
  compdef _gpulint gpulint kubectl-gpulint
fi
)";
  return out;
}

int Run(const std::vector<std::string>& args, CliIo& io) {
  ParsedArgs parsed;
  if (int rc = ParseOrExit(args, CompletionCommand(), &parsed, io); rc >= 0) return rc;
  if (parsed.positional.size() != 1) {
    Fail(io, "completion takes one shell: bash or zsh");
    return kExitUsage;
  }
  const std::string& shell = parsed.positional[0];
  if (shell == "bash") {
    io.out << Bash();
  } else if (shell == "zsh") {
    io.out << Zsh();
  } else {
    Fail(io, "completion: unknown shell '" + shell + "' (choose bash or zsh)");
    return kExitUsage;
  }
  return kExitClean;
}

}  // namespace

const Command& CompletionCommand() {
  static const Command command{"completion", kHelp, Run, {}, {"bash", "zsh"}};
  return command;
}

}  // namespace gpulint
