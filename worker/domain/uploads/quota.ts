/**
 * How much one uploader may put into R2 in any 24 hours: enough for every screen that asks for
 * an image (deposit screenshots, ID photo and signature, chat pictures) many times over, not
 * enough to turn the bucket into free storage.
 */
export const UPLOAD_QUOTA = { files: 60, bytes: 30 * 1024 * 1024, window_ms: 24 * 3600_000 } as const;

export type UploadUse = { files: number; bytes: number };

/** May one more upload of `next_bytes` go in on top of `use`? */
export function withinUploadQuota(use: UploadUse, next_bytes: number): boolean {
  return use.files < UPLOAD_QUOTA.files && use.bytes + next_bytes <= UPLOAD_QUOTA.bytes;
}

/** The words' parameters for the refusal: the limits as a person reads them. */
export function uploadQuotaParams() {
  return { files: UPLOAD_QUOTA.files, mb: UPLOAD_QUOTA.bytes / (1024 * 1024) };
}
