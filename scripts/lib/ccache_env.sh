# Sourced by build.sh and fuzz.sh: the compiler cache's settings, the same for both builds.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths relative to the checkout, so that another clone of the same sources hits the cache.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
# Precompiled headers (GPO_PCH): ccache caches objects built with them only with this sloppiness.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# Depend mode: ccache takes the headers a file read from the compiler's -MD output instead of
# running the preprocessor a second time. On a miss (every file of a cold build) the second
# preprocessor run cost 0.8 s of a 6 s compile (test/reconciler/store_test.cc). Ninja's
# generator asks for -MD already, which depend mode needs.
export CCACHE_DEPEND=true
