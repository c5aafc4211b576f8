-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "grantScope" TEXT,
ADD COLUMN     "subjectDigest" TEXT,
ADD COLUMN     "subjectKind" TEXT,
ADD COLUMN     "subjectParts" TEXT;

