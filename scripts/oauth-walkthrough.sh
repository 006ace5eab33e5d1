#!/usr/bin/env bash
# The OAuth walk-through of README.md, with curl doing the browser's part (a cookie jar and the
# two forms). Run it against `npm start`: bash scripts/oauth-walkthrough.sh [http://localhost:3000]
# Needs curl, jq and openssl.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
AUTH=${1:-http://localhost:3000}
REDIRECT=http://127.0.0.1:8976/callback
PASSWORD='correct horse battery staple'

echo '# 1. A team whose owner can sign in (password for the sign-in page)'
OUT=$(TAP_PASSWORD="$PASSWORD" npm run -s cli -- bootstrap --team "walk-$RANDOM" --email "ada-$RANDOM@example.com")
echo "$OUT"
TEAM=$(jq -r .team <<<"$OUT"); TOKEN=$(jq -r .token <<<"$OUT"); EMAIL=$(jq -r .email <<<"$OUT")

echo '# 2. Discovery'
curl -s "$AUTH/.well-known/oauth-authorization-server" | jq -c '{issuer, authorization_endpoint, token_endpoint, code_challenge_methods_supported}'

echo '# 3. Register a public (PKCE) client'
REG=$(curl -s "$AUTH/oauth/register" -H 'Content-Type: application/json' \
  -d "{\"client_name\":\"curl walk-through\",\"redirect_uris\":[\"$REDIRECT\"],\"token_endpoint_auth_method\":\"none\"}")
echo "$REG"
CLIENT_ID=$(jq -r .client_id <<<"$REG")

echo '# 4. PKCE verifier and S256 challenge, then the authorization URL (open it in a browser)'
VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
AUTHZ="$AUTH/oauth/authorize?response_type=code&client_id=$CLIENT_ID&redirect_uri=$REDIRECT&scope=mcp:use&state=xyz&code_challenge=$CHALLENGE&code_challenge_method=S256"
echo "$AUTHZ"

echo '# 5. What the browser does: sign in, allow, land on the redirect URI with code, state and iss'
CALLBACK=$(sign_in_and_allow "$AUTH" "$AUTHZ" "$EMAIL" "$PASSWORD")
echo "$CALLBACK"
CODE=$(sed 's/.*[?&]code=\([^&]*\).*/\1/' <<<"$CALLBACK")

echo '# 6. Code → tokens (the verifier goes only here)'
TOKENS=$(curl -s "$AUTH/oauth/token" -d grant_type=authorization_code -d "code=$CODE" \
  -d "redirect_uri=$REDIRECT" -d "client_id=$CLIENT_ID" -d "code_verifier=$VERIFIER")
echo "$TOKENS"
ACCESS=$(jq -r .access_token <<<"$TOKENS"); REFRESH=$(jq -r .refresh_token <<<"$TOKENS")

echo '# 7. Call the API with it'
curl -s "$AUTH/v1/agents" -H "Authorization: Bearer $ACCESS" -H "X-Team-Slug: $TEAM"; echo

echo '# 8. Refresh (rotation: the old refresh token is spent)'
TOKENS=$(curl -s "$AUTH/oauth/token" -d grant_type=refresh_token -d "refresh_token=$REFRESH" -d "client_id=$CLIENT_ID")
echo "$TOKENS"
ACCESS=$(jq -r .access_token <<<"$TOKENS"); REFRESH=$(jq -r .refresh_token <<<"$TOKENS")

echo '# 9. Introspect, revoke the refresh token (its access tokens end too), introspect again'
curl -s "$AUTH/mcp/introspect" -d "token=$ACCESS" -d "client_id=$CLIENT_ID"; echo
curl -s -o /dev/null -w 'revoke: %{http_code}\n' "$AUTH/oauth/token/revoke" -d "token=$REFRESH" -d token_type_hint=refresh_token -d "client_id=$CLIENT_ID"
curl -s "$AUTH/mcp/introspect" -d "token=$ACCESS" -d "client_id=$CLIENT_ID"; echo
curl -s "$AUTH/v1/agents" -H "Authorization: Bearer $ACCESS" -H "X-Team-Slug: $TEAM"; echo

echo '# 10. A backend: a team client registered with a member API token, then client_credentials'
CC=$(curl -s "$AUTH/oauth/register" -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" -H "X-Team-Slug: $TEAM" \
  -d '{"client_name":"backend","grant_types":["client_credentials"],"scope":"mcp:read"}')
echo "$CC"
curl -s "$AUTH/oauth/token" -u "$(jq -r .client_id <<<"$CC"):$(jq -r .client_secret <<<"$CC")" -d grant_type=client_credentials -d scope=mcp:read; echo
