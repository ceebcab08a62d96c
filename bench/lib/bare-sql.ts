/**
 * Verbatim the SQL Sequelize sends for GET /api/v2/admin/users?page=1&page_size=20
 * (`User.findAndCountAll`, default sort -id): both statements at once, simple query protocol.
 */
export const USERS_COUNT_SQL = 'SELECT count(*) AS "count" FROM "users" AS "User";';
export const USERS_PAGE_SQL =
  'SELECT "id", "email", "phone", "nickname", "password_hash", "status", "email_verified_at", "is_verified", "verification_status", "last_login_at", "created_at", "updated_at" FROM "users" AS "User" ORDER BY "User"."id" DESC, "User"."id" DESC LIMIT 20 OFFSET 0;';
