/**
 * A self-signed certificate for 127.0.0.1 (valid until 2126) and its key, generated for mqkit's TLS tests with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
 * -subj "/CN=mqkit-test-redis" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost"`. Test data only: it
 * protects nothing.
 */
export const TEST_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBqjCCAU+gAwIBAgIUMB2Pu9c283xOQMV2bTWedOwC9SwwCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQbXFraXQtdGVzdC1yZWRpczAgFw0yNjExMjkyMjA1NDlaGA8y
MTI2MTEwNTIyMDU0OVowGzEZMBcGA1UEAwwQbXFraXQtdGVzdC1yZWRpczBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABHomVXA08a2AHJbTFkyiQNR8jSJTTzVBza8Y
Vabt6PVKmYgAuPwyTYmXQ1OvsY+inPKnr7M+dJB5uco/SwY+NBmjbzBtMB0GA1Ud
DgQWBBTCUwSzAstif0Bkp/HC3Rxv0Zdh5DAfBgNVHSMEGDAWgBTCUwSzAstif0Bk
p/HC3Rxv0Zdh5DAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGHBH8AAAGCCWxv
Y2FsaG9zdDAKBggqhkjOPQQDAgNJADBGAiEArVHqHLp/4K2T9sO7rtY4B94STbos
MozYgDC5LImynOECIQD179h6RDiwAyoD0HatGZQjyCfz/9NOT2XzLD1atktEkA==
-----END CERTIFICATE-----
`;

export const TEST_TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgo15csNjXub2H7/9Q
k14WVr0zm3nItiyKImXhhaB3rbWhRANCAAR6JlVwNPGtgByW0xZMokDUfI0iU081
Qc2vGFWm7ej1SpmIALj8Mk2Jl0NTr7GPopzyp6+zPnSQebnKP0sGPjQZ
-----END PRIVATE KEY-----
`;
