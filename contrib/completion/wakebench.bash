# bash completion for wakebench (installed as
# /usr/share/bash-completion/completions/wakebench). The candidates come from
# the binary itself, `wakebench __complete WORD...`, which reads the option
# tables that parse the command line and print -h, so they cannot drift from
# them; scheduler feature names come from the running kernel where readable.
# zsh: autoload -U bashcompinit && bashcompinit && source this file.
_wakebench()
{
	local cur words cword out IFS
	if declare -F _init_completion >/dev/null 2>&1; then
		# "--placement=s" stays one word
		_init_completion -n = || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	out=$("${words[0]}" __complete "${words[@]:1:cword}" 2>/dev/null) || return
	case $out in
	__files)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	__dirs)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	esac
	IFS=$'\n'
	COMPREPLY=($(compgen -W "$out" -- "$cur"))
}
complete -F _wakebench wakebench
