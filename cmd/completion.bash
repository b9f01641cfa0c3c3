# bash completion for CLAWD, by CLAWD completion bash: source it, e.g.
#   source <(CLAWD completion bash)
# It needs bash alone (3.2 or newer), not the bash-completion package.
# The words come from `CLAWD ... --generate-shell-completion`, a
# "word:description" a line; the descriptions show on a second Tab.

__CLAWD_bash_autocomplete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local -a cmd=("${COMP_WORDS[@]:0:COMP_CWORD}")
  # The words as typed, not evaluated: a completion runs nothing but
  # clawd. A leading ~/ is the one expansion made.
  if [[ "${cmd[0]}" == "~/"* ]]; then
    cmd[0]="${HOME}/${cmd[0]#"~/"}"
  fi
  if [[ "${cur}" == -* ]]; then
    cmd+=("${cur}")
  fi
  local out
  out="$("${cmd[@]}" --generate-shell-completion 2>/dev/null)" || out=""

  local -a tokens=() descriptions=() matches=()
  local line token longest=0
  while IFS= read -r line; do
    token="${line%%:*}"
    [[ -z "${token}" ]] && continue
    tokens+=("${token}")
    if [[ "${line}" == *:* ]]; then
      descriptions+=("${line#*:}")
    else
      descriptions+=("")
    fi
  done <<< "${out}"

  local i
  for i in "${!tokens[@]}"; do
    if [[ "${tokens[i]}" == "${cur}"* ]]; then
      matches+=("${i}")
      (( ${#tokens[i]} > longest )) && longest=${#tokens[i]}
    fi
  done

  COMPREPLY=()
  # COMP_TYPE 63: bash lists the matches (a second Tab); show what each is.
  if [[ "${COMP_TYPE:-}" == "63" && ${#matches[@]} -gt 1 ]]; then
    for i in "${matches[@]}"; do
      if [[ -n "${descriptions[i]}" ]]; then
        COMPREPLY+=("$(printf '%-*s  -- %s' "${longest}" "${tokens[i]}" "${descriptions[i]}")")
      else
        COMPREPLY+=("${tokens[i]}")
      fi
    done
  else
    for i in "${matches[@]}"; do
      COMPREPLY+=("${tokens[i]}")
    done
  fi
  return 0
}

complete -o bashdefault -o default -F __CLAWD_bash_autocomplete CLAWD
