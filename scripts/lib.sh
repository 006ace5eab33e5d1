# Shared by the walk-through scripts.
#   new_team <prefix> [bootstrap flags]   a fresh team: sets TEAM, TOKEN, AGENT, EMAIL, and H (auth + team headers) and J (JSON content type)
#   sign_in_and_allow <auth_url> <authorization_url> <email> <password>
#                                         plays the browser (cookie jar, the sign-in and consent forms, the preselected agent)
#                                         and prints the URL the browser is sent back to (the client's redirect URI with code)
new_team() {
  local out
  out=$(npm run -s cli -- bootstrap --team "$1-$RANDOM" "${@:2}")
  TEAM=$(jq -r .team <<<"$out"); TOKEN=$(jq -r .token <<<"$out"); AGENT=$(jq -r .agentId <<<"$out"); EMAIL=$(jq -r .email <<<"$out")
  H=(-H "Authorization: Bearer $TOKEN" -H "X-Team-Slug: $TEAM")
  J=(-H 'Content-Type: application/json')
}

sign_in_and_allow() {
  local auth=$1 authz=$2 email=$3 password=$4 jar page request_id csrf consent agent
  jar=$(mktemp)
  field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//;s/"$//'; }
  page=$(curl -s -c "$jar" -b "$jar" "$authz")
  request_id=$(field request_id <<<"$page"); csrf=$(field csrf_token <<<"$page")
  consent=$(curl -s -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' "$auth/oauth/authorize/login" \
    --data-urlencode "request_id=$request_id" --data-urlencode "csrf_token=$csrf" \
    --data-urlencode "email=$email" --data-urlencode "password=$password")
  agent=$(curl -s -c "$jar" -b "$jar" "$consent" | grep -o 'name="agent" value="[^"]*" checked' | sed 's/.*value="//;s/" checked//')
  curl -s -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' "$auth/oauth/authorize/consent" \
    --data-urlencode "request_id=$request_id" --data-urlencode "csrf_token=$csrf" \
    --data-urlencode decision=approve --data-urlencode "agent=$agent"
  rm -f "$jar"
}
