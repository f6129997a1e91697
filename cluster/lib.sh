# Shared by the scripts of cluster/ (sourced, not run).

# The binary: $REVERSI, else reversi on PATH (`cargo install --path .`), else this checkout's
# release build (`cargo build --release`).
find_reversi() {
    if [ -n "${REVERSI:-}" ]; then
        echo "$REVERSI"
    elif command -v reversi >/dev/null 2>&1; then
        echo reversi
    elif [ -x "$1/target/release/reversi" ]; then
        echo "$1/target/release/reversi"
    else
        echo "no reversi binary: run 'cargo install --path .' or 'cargo build --release' in $1, or set REVERSI" >&2
        return 2
    fi
}
