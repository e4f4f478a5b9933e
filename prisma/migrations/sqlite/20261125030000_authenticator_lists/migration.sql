-- An app's authenticator allow list and block list, by AAGUID (an app with attestation enabled).
CREATE TABLE "Authenticator" (
    "tenant" TEXT NOT NULL,
    "aaGuid" TEXT NOT NULL,
    "isAllowed" BOOLEAN NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("tenant", "aaGuid"),
    CONSTRAINT "Authenticator_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
