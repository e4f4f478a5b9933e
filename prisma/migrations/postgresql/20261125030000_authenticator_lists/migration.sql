-- An app's authenticator allow list and block list, by AAGUID (an app with attestation enabled).
CREATE TABLE "Authenticator" (
    "tenant" TEXT NOT NULL,
    "aaGuid" TEXT NOT NULL,
    "isAllowed" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Authenticator_pkey" PRIMARY KEY ("tenant","aaGuid")
);

ALTER TABLE "Authenticator" ADD CONSTRAINT "Authenticator_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
