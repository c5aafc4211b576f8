-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "host" TEXT,
ADD COLUMN     "taskQueue" TEXT;

-- CreateIndex
CREATE INDEX "sessions_workspace_updatedAtMs_idx" ON "sessions"("workspace", "updatedAtMs");

-- CreateIndex
CREATE INDEX "sessions_updatedAtMs_idx" ON "sessions"("updatedAtMs");

