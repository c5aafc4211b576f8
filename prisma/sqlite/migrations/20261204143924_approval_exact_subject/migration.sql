-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "grantScope" TEXT;
ALTER TABLE "approvals" ADD COLUMN "subjectDigest" TEXT;
ALTER TABLE "approvals" ADD COLUMN "subjectKind" TEXT;
ALTER TABLE "approvals" ADD COLUMN "subjectParts" TEXT;

