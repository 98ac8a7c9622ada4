# check-absent: succeed only when Application $APP no longer exists. A
# scoped teardown runs it for every app outside the scope that depends on
# the scope, since nothing may be removed while its dependents exist
# (RFC 6.5).
: "${APP:?}" "${PROJECT:?}"
if present; then
  echo "$APP still exists and depends on an app being torn down; tear it down first" >&2
  exit 1
fi
echo "$APP: absent"
