# bash completion for toposcope: subcommands and each subcommand's options, read from its --help
# (so new subcommands and options complete without editing this file); paths everywhere else.
_toposcope() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    local subs
    subs=$("$cmd" --help 2>/dev/null | awk '/^Subcommands:/{s=1; next} s && /^  [a-z]/{print $1}')
    COMPREPLY=($(compgen -W "$subs --help --version" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    local opts
    opts=$("$cmd" "${COMP_WORDS[1]}" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u)
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _toposcope toposcope
