# Shared by the walk-through scripts (sourced after `set -euo pipefail`). Every script runs
# against TAP_URL (default http://localhost:3000; a first argument overrides it) from the project
# root, and stops at the first thing that is not as its README section says, printing why.
#
#   BASE, API                           the server root and $BASE/v1
#   req <curl args…>                    curl that fails loudly: an HTTP error or no answer prints the
#                                       request, the status and the error body to stderr and stops
#   check <what> <jq test> <json>       stops unless the test holds for the JSON
#   poll <seconds> <jq test> <curl args…>  GETs until the answer passes the test (printed), or stops
#                                       with the last answer after <seconds>
#   new_team <prefix> [bootstrap flags] a fresh team: sets TEAM, TOKEN, AGENT, EMAIL, and H (auth +
#                                       team headers) and J (JSON content type)
#   sign_in_and_allow <auth_url> <authorization_url> <email> <password>
#                                       plays the browser (cookie jar, the sign-in and consent forms,
#                                       the preselected agent) and prints the URL the browser is sent
#                                       back to (the client's redirect URI with code)
shopt -s inherit_errexit
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BASE=${1:-${TAP_URL:-http://localhost:3000}}
BASE=${BASE%/}
API=$BASE/v1
for tool in curl jq; do
  command -v "$tool" > /dev/null || { echo "FAILED: $0 needs $tool (apt-get install -y $tool)" >&2; exit 1; }
done

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

req() {
  local body method=GET target= prev=
  for arg in "$@"; do
    [[ $prev == -X ]] && method=$arg
    [[ $arg == http://* || $arg == https://* ]] && target=$arg
    prev=$arg
  done
  [[ $method == GET && " $* " == *" -"[dF]" "* ]] && method=POST
  if ! body=$(curl -sS --fail-with-body "$@"); then
    fail "$method ${target:-(no URL)} → ${body:-no answer (is the API running at $BASE?)}"
  fi
  printf '%s\n' "$body"
}

check() {
  jq -e "$2" <<<"$3" > /dev/null || fail "$1: expected $2, got: $3"
}

poll() {
  local seconds=$1 test=$2 body deadline
  shift 2
  deadline=$((SECONDS + seconds))
  while :; do
    body=$(req "$@") || exit 1
    if jq -e "$test" <<<"$body" > /dev/null; then
      printf '%s\n' "$body"
      return 0
    fi
    ((SECONDS < deadline)) || fail "waited ${seconds}s for $test; the last answer: $body"
    sleep 0.5
  done
}

new_team() {
  local out
  out=$(npm run -s cli -- bootstrap --team "$1-$RANDOM$RANDOM" "${@:2}") || fail "npm run cli -- bootstrap failed (it needs the database npm start uses)"
  TEAM=$(jq -er .team <<<"$out"); TOKEN=$(jq -er .token <<<"$out"); AGENT=$(jq -er .agentId <<<"$out"); EMAIL=$(jq -er .email <<<"$out")
  H=(-H "Authorization: Bearer $TOKEN" -H "X-Team-Slug: $TEAM")
  J=(-H 'Content-Type: application/json')
}

sign_in_and_allow() {
  local auth=$1 authz=$2 email=$3 password=$4 jar page request_id csrf consent consent_page agent callback
  jar=$(mktemp)
  field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//;s/"$//'; }
  page=$(req -c "$jar" -b "$jar" "$authz") || exit 1
  request_id=$(field request_id <<<"$page" || true); csrf=$(field csrf_token <<<"$page" || true)
  [[ -n $request_id && -n $csrf ]] || fail "the sign-in page has no request_id or csrf_token: $page"
  consent=$(curl -sS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' "$auth/oauth/authorize/login" \
    --data-urlencode "request_id=$request_id" --data-urlencode "csrf_token=$csrf" \
    --data-urlencode "email=$email" --data-urlencode "password=$password")
  [[ -n $consent ]] || fail "signing in as $email did not redirect to the consent page (wrong password?)"
  consent_page=$(req -c "$jar" -b "$jar" "$consent") || exit 1
  agent=$(grep -o 'name="agent" value="[^"]*" checked' <<<"$consent_page" | sed 's/.*value="//;s/" checked//' || true)
  [[ -n $agent ]] || fail "the consent page preselects no agent: $consent_page"
  callback=$(curl -sS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' "$auth/oauth/authorize/consent" \
    --data-urlencode "request_id=$request_id" --data-urlencode "csrf_token=$csrf" \
    --data-urlencode decision=approve --data-urlencode "agent=$agent")
  rm -f "$jar"
  [[ $callback == *code=* ]] || fail "allowing did not redirect with a code: ${callback:-no redirect}"
  printf '%s\n' "$callback"
}
