# planenc --profile tar: unpack a tarball into one directory, no network.
# Give the tarball read-only and the directory writable:
#   planenc --profile tar --ro "$PWD/src.tar.gz" --rw "$PWD/out" -- \
#       tar -C "$PWD/out" -xzf "$PWD/src.tar.gz" | confexec
# As root, tar gives each file the owner the archive names, which takes
# a capability (CAP_CHOWN) no payload has: every file would fail with
# "Cannot change ownership to uid 1000".  TAR_OPTIONS=--no-same-owner
# (below) makes the files the caller's, as tar does for anyone else;
# the modes are kept.  Device files in the archive cannot be made.
--preset sys
--tmp
--setenv PATH=/usr/local/bin:/usr/bin:/bin
--setenv LANG=C.UTF-8
--setenv TAR_OPTIONS=--no-same-owner
--timeout 30m
