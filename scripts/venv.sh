# Sourced by the scripts here: make sure the Python venv at $VENV exists and
# holds the packages they need; sets PY to its python.
#   VENV          venv directory (default: <repo>/.venv, gitignored)
#   VENV_PKGS     extra pip requirements to ensure (space-separated)
: "${ROOT:?}"
VENV="${VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
_need=("wasure==0.9" "wasmtime" ${VENV_PKGS:-})
if [[ ! -x "$PY" ]]; then
    echo "creating venv $VENV ..." >&2
    python3 -m venv "$VENV" >&2
fi
_missing=()
for _req in "${_need[@]}"; do
    _name="${_req%%[=<>]*}"
    _want=""
    [[ "$_req" == *==* ]] && _want="${_req#*==}"
    _have="$("$PY" -c "import importlib.metadata as m
try: print(m.version('$_name'))
except Exception: print('')" 2>/dev/null)"
    if [[ -z "$_have" || ( -n "$_want" && "$_have" != "$_want" ) ]]; then
        _missing+=("$_req")
    fi
done
if ((${#_missing[@]})); then
    echo "pip install ${_missing[*]} into $VENV ..." >&2
    nice "$PY" -m pip install -q "${_missing[@]}" >&2
fi
unset _need _missing _req _name _want _have
