// README's Rust snippet is examples/embed.rs verbatim (CI builds and runs
// that example, scripts/test.sh), so the snippet always compiles and runs.
//
// RUN: python3 -c "import re,sys; t=open(sys.argv[1]).read(); s=t[t.index('### Rust'):]; print(re.search(r'\x60\x60\x60rust\n(.*?)\x60\x60\x60', s, re.S).group(1), end='')" %spmd_src_root/README.md > %t.snippet.rs
// RUN: diff -u %spmd_src_root/examples/embed.rs %t.snippet.rs
