# planenc --profile: a C build (./configure && make with the system
# compiler).  Give the build tree on the command line, writable and
# executable (configure runs the programs it compiles):
#   planenc --profile c-build --rwx "$PWD" -- /bin/sh -c \
#       './configure && make' | confexec
--preset sys
--tmp
--setenv PATH=/usr/local/bin:/usr/bin:/bin
--setenv LANG=C
--timeout 30m
