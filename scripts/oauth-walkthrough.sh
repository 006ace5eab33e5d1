#!/usr/bin/env bash
# The "Signing in with OAuth" walk-through of README.md, in a fresh team, with curl doing the
# browser's part (a cookie jar and the two forms), against `npm start`:
#   bash scripts/oauth-walkthrough.sh            (or TAP_URL=http://host:port, or that URL as $1)
# Needs curl, jq and openssl. Stops at the first call that fails, printing its error body.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v openssl > /dev/null || fail "$0 needs openssl (apt-get install -y openssl)"
AUTH=$BASE
REDIRECT=http://127.0.0.1:8976/callback
PASSWORD='correct horse battery staple'

echo '# 1. A team whose owner can sign in (password for the sign-in page)'
TAP_PASSWORD="$PASSWORD" new_team walk --email "ada-$RANDOM$RANDOM@example.com"
echo "{\"team\":\"$TEAM\",\"email\":\"$EMAIL\",\"agentId\":\"$AGENT\"}"

echo '# 2. Discovery'
req "$AUTH/.well-known/oauth-authorization-server" | jq -c '{issuer, authorization_endpoint, token_endpoint, code_challenge_methods_supported}'

echo '# 3. Register a public (PKCE) client'
REG=$(req "$AUTH/oauth/register" -H 'Content-Type: application/json' \
  -d "{\"client_name\":\"curl walk-through\",\"redirect_uris\":[\"$REDIRECT\"],\"token_endpoint_auth_method\":\"none\"}")
echo "$REG"
CLIENT_ID=$(jq -er .client_id <<<"$REG")

echo '# 4. PKCE verifier and S256 challenge, then the authorization URL (open it in a browser)'
VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
AUTHZ="$AUTH/oauth/authorize?response_type=code&client_id=$CLIENT_ID&redirect_uri=$REDIRECT&scope=mcp:use&state=xyz&code_challenge=$CHALLENGE&code_challenge_method=S256"
echo "$AUTHZ"

echo '# 5. What the browser does: sign in, allow, land on the redirect URI with code, state and iss'
CALLBACK=$(sign_in_and_allow "$AUTH" "$AUTHZ" "$EMAIL" "$PASSWORD")
echo "$CALLBACK"
[[ $CALLBACK == "$REDIRECT?"*state=xyz* ]] || fail "the callback is not $REDIRECT with state=xyz: $CALLBACK"
CODE=$(sed 's/.*[?&]code=\([^&]*\).*/\1/' <<<"$CALLBACK")

echo '# 6. Code → tokens (the verifier goes only here)'
TOKENS=$(req "$AUTH/oauth/token" -d grant_type=authorization_code -d "code=$CODE" \
  -d "redirect_uri=$REDIRECT" -d "client_id=$CLIENT_ID" -d "code_verifier=$VERIFIER")
echo "$TOKENS"
ACCESS=$(jq -er .access_token <<<"$TOKENS"); REFRESH=$(jq -er .refresh_token <<<"$TOKENS")

echo '# 7. Call the API with it'
req "$AUTH/v1/agents" -H "Authorization: Bearer $ACCESS" -H "X-Team-Slug: $TEAM" | jq -c '[.data[] | {uuid, name, mode}]'

echo '# 8. Refresh (rotation: the old refresh token is spent)'
TOKENS=$(req "$AUTH/oauth/token" -d grant_type=refresh_token -d "refresh_token=$REFRESH" -d "client_id=$CLIENT_ID")
echo "$TOKENS"
ACCESS=$(jq -er .access_token <<<"$TOKENS"); REFRESH=$(jq -er .refresh_token <<<"$TOKENS")

echo '# 9. Introspect, revoke the refresh token (its access tokens end too), introspect again'
INTRO=$(req "$AUTH/mcp/introspect" -d "token=$ACCESS" -d "client_id=$CLIENT_ID")
echo "$INTRO"
check 'introspection of the new access token' ".active == true and .team == \"$TEAM\"" "$INTRO"
req "$AUTH/oauth/token/revoke" -d "token=$REFRESH" -d token_type_hint=refresh_token -d "client_id=$CLIENT_ID" -o /dev/null -w 'revoke: %{http_code}\n'
INTRO=$(req "$AUTH/mcp/introspect" -d "token=$ACCESS" -d "client_id=$CLIENT_ID")
echo "$INTRO"
check 'introspection after the revocation' '.active == false' "$INTRO"
STATUS=$(curl -sS -o /dev/null -w '%{http_code}' "$AUTH/v1/agents" -H "Authorization: Bearer $ACCESS" -H "X-Team-Slug: $TEAM")
echo "GET /v1/agents with the revoked access token: $STATUS"
[[ $STATUS == 401 ]] || fail "the revoked access token still answers $STATUS"

echo '# 10. A backend: a team client registered with a member API token, then client_credentials'
CC=$(req "$AUTH/oauth/register" -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" -H "X-Team-Slug: $TEAM" \
  -d '{"client_name":"backend","grant_types":["client_credentials"],"scope":"mcp:read"}')
echo "$CC"
CCT=$(req "$AUTH/oauth/token" -u "$(jq -er .client_id <<<"$CC"):$(jq -er .client_secret <<<"$CC")" -d grant_type=client_credentials -d scope=mcp:read)
echo "$CCT"
check 'the client_credentials token' '.scope == "mcp:read" and (.access_token | startswith("oat_"))' "$CCT"
echo "OK oauth walk-through: a PKCE client signed a user in, called the API, refreshed, was revoked (introspection inactive, API 401), and a team backend got a client_credentials token"
