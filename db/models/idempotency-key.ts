import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

/** `in_progress`: claimed, the handler is running (or its process died). `done`: the answer is stored for replay. */
export const IDEMPOTENCY_KEY_STATES = ['in_progress', 'done'] as const;
export type IdempotencyKeyState = (typeof IDEMPOTENCY_KEY_STATES)[number];

export interface IdempotencyKeyRow extends Model<InferAttributes<IdempotencyKeyRow>, InferCreationAttributes<IdempotencyKeyRow>> {
  id: CreationOptional<number>;
  /** Whose key: `<surface>:<principal id>` (keys are per user). */
  scope: string;
  key: string;
  method: string;
  /** The route's path template (`/api/v2/client/invoices/{id}/pay/balance`). */
  route: string;
  /** sha256 (hex) of method, concrete path and canonical JSON body. */
  fingerprint: string;
  state: IdempotencyKeyState;
  claim_token: string;
  response_status: CreationOptional<number | null>;
  /** The answer's body exactly as sent. */
  response_body: CreationOptional<string | null>;
  created_at: CreationOptional<Date>;
  claimed_at: CreationOptional<Date>;
  completed_at: CreationOptional<Date | null>;
  expires_at: Date;
}

export function defineIdempotencyKey(sequelize: Sequelize) {
  return sequelize.define<IdempotencyKeyRow>(
    'IdempotencyKey',
    {
      id: {
        type: DataTypes.BIGINT,
        primaryKey: true,
        autoIncrement: true,
        get(this: IdempotencyKeyRow) {
          return Number(this.getDataValue('id'));
        },
      },
      scope: { type: DataTypes.STRING(64), allowNull: false },
      key: { type: DataTypes.STRING(255), allowNull: false },
      method: { type: DataTypes.STRING(8), allowNull: false },
      route: { type: DataTypes.STRING(255), allowNull: false },
      fingerprint: { type: DataTypes.CHAR(64), allowNull: false },
      state: { type: DataTypes.STRING(16), allowNull: false },
      claim_token: { type: DataTypes.UUID, allowNull: false },
      response_status: { type: DataTypes.SMALLINT, allowNull: true },
      response_body: { type: DataTypes.TEXT, allowNull: true },
      created_at: DataTypes.DATE,
      claimed_at: DataTypes.DATE,
      completed_at: { type: DataTypes.DATE, allowNull: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'idempotency_keys', timestamps: false },
  );
}
