# planenc --profile: a python test run (python3 -m unittest).  Give the
# project on the command line, writable for __pycache__:
#   planenc --profile python-test --rw "$PWD" -- python3 -m unittest | confexec
--preset sys
--tmp
--setenv PATH=/usr/local/bin:/usr/bin:/bin
--setenv LANG=C.UTF-8
--setenv PYTHONDONTWRITEBYTECODE=1
--timeout 30m
