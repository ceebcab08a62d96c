import { sqlOne, sqlRows } from '../../db/sql.js';
import { AppError, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';

export type DepartmentRow = {
  id: number;
  name: string;
  description: string;
  notify_email: string | null;
  sort_order: number;
  is_visible: boolean;
  created_at: Date;
  updated_at: Date;
};

export type DepartmentInput = { name: string; description?: string | undefined; notify_email?: string | null | undefined; sort_order?: number | undefined; is_visible?: boolean | undefined };

const COLUMNS = 'id, name, description, notify_email, sort_order, is_visible, created_at, updated_at';

export async function listDepartments(deps: DomainDeps, options: { visibleOnly: boolean }): Promise<DepartmentRow[]> {
  return sqlRows<DepartmentRow>(
    deps,
    `SELECT ${COLUMNS} FROM ticket_departments WHERE ($1::boolean = false OR is_visible) ORDER BY sort_order, id LIMIT 200`,
    [options.visibleOnly],
  );
}

export async function getDepartment(deps: DomainDeps, id: number): Promise<DepartmentRow> {
  const row = await sqlOne<DepartmentRow>(deps, `SELECT ${COLUMNS} FROM ticket_departments WHERE id = $1`, [id]);
  if (!row) throw notFound('部门不存在');
  return row;
}

function duplicateName(error: unknown): never {
  if ((error as { code?: string }).code === '23505') throw validationError({ name: ['部门名称已存在'] }, '部门名称已存在');
  throw error;
}

export async function createDepartment(deps: DomainDeps, input: DepartmentInput): Promise<DepartmentRow> {
  const row = await sqlOne<DepartmentRow>(
    deps,
    `INSERT INTO ticket_departments (name, description, notify_email, sort_order, is_visible) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [input.name, input.description ?? '', input.notify_email ?? null, input.sort_order ?? 0, input.is_visible ?? true],
  ).catch(duplicateName);
  return row as DepartmentRow;
}

export async function updateDepartment(deps: DomainDeps, id: number, input: Partial<DepartmentInput>): Promise<DepartmentRow> {
  const row = await sqlOne<DepartmentRow>(
    deps,
    `UPDATE ticket_departments SET
       name = COALESCE($2, name), description = COALESCE($3, description),
       notify_email = CASE WHEN $4::boolean THEN $5::varchar ELSE notify_email END,
       sort_order = COALESCE($6, sort_order), is_visible = COALESCE($7, is_visible), updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, input.name ?? null, input.description ?? null, input.notify_email !== undefined, input.notify_email ?? null, input.sort_order ?? null, input.is_visible ?? null],
  ).catch(duplicateName);
  if (!row) throw notFound('部门不存在');
  return row;
}

/** A department that has tickets is kept (hide it instead): 40901. */
export async function deleteDepartment(deps: DomainDeps, id: number): Promise<void> {
  await getDepartment(deps, id);
  const deleted = await sqlOne<{ id: number }>(
    deps,
    'DELETE FROM ticket_departments d WHERE d.id = $1 AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.department_id = d.id) RETURNING d.id',
    [id],
  ).catch((error: unknown) => {
    if ((error as { code?: string }).code === '23503') return null;
    throw error;
  });
  if (!deleted) throw new AppError(ErrorCode.IN_USE, '该部门下已有工单，不能删除，可改为隐藏');
}
