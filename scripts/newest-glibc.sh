#!/usr/bin/env bash
# Says the newest glibc symbol version program $1 needs (objdump -T), and
# fails if it is newer than $2: the oldest glibc the release claims.
set -euo pipefail
program=$1 oldest=$2
newest=$(objdump -T "$program" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
if [ -z "$newest" ]; then
    echo "$program: objdump -T shows no glibc symbols; is it a dynamically linked program?" >&2
    exit 1
fi
if [ "$(printf '%s\n%s\n' "$newest" "$oldest" | sort -V | tail -n 1)" != "$oldest" ]; then
    echo "$program needs glibc $newest, newer than the $oldest the release claims" >&2
    exit 1
fi
echo "$program: newest glibc symbol $newest (claims $oldest); $(stat -c %s "$program") bytes"
