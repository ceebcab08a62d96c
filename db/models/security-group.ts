import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

export const SECURITY_RULE_DIRECTIONS = ['in', 'out'] as const;
export type SecurityRuleDirection = (typeof SECURITY_RULE_DIRECTIONS)[number];
export const SECURITY_RULE_PROTOCOLS = ['tcp', 'udp', 'icmp', 'all'] as const;
export type SecurityRuleProtocol = (typeof SECURITY_RULE_PROTOCOLS)[number];
export const SECURITY_RULE_ACTIONS = ['allow', 'deny'] as const;
export type SecurityRuleAction = (typeof SECURITY_RULE_ACTIONS)[number];

/** A user's security group (migration 0016). */
export interface SecurityGroupRow extends Model<InferAttributes<SecurityGroupRow>, InferCreationAttributes<SecurityGroupRow>> {
  id: CreationOptional<number>;
  user_id: number;
  name: string;
  description: CreationOptional<string>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface SecurityGroupRuleRow extends Model<InferAttributes<SecurityGroupRuleRow>, InferCreationAttributes<SecurityGroupRuleRow>> {
  id: CreationOptional<number>;
  group_id: number;
  direction: SecurityRuleDirection;
  protocol: SecurityRuleProtocol;
  port_from: number;
  port_to: number;
  cidr: string;
  action: SecurityRuleAction;
  description: CreationOptional<string>;
  created_at: CreationOptional<Date>;
}

/** A group linked to a service. */
export interface ServiceSecurityGroupRow extends Model<InferAttributes<ServiceSecurityGroupRow>, InferCreationAttributes<ServiceSecurityGroupRow>> {
  service_id: number;
  group_id: number;
  user_id: number;
  created_at: CreationOptional<Date>;
}

/** A rule pushed to a service's upstream host, with the upstream's rule id. */
export interface ServiceSecurityRulePushRow extends Model<InferAttributes<ServiceSecurityRulePushRow>, InferCreationAttributes<ServiceSecurityRulePushRow>> {
  service_id: number;
  rule_id: number;
  group_id: number;
  upstream_rule_id: string;
  created_at: CreationOptional<Date>;
}

export function defineSecurityGroupModels(sequelize: Sequelize) {
  const SecurityGroup = sequelize.define<SecurityGroupRow>(
    'SecurityGroup',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      name: { type: DataTypes.STRING(64), allowNull: false },
      description: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'security_groups', timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
  );
  const SecurityGroupRule = sequelize.define<SecurityGroupRuleRow>(
    'SecurityGroupRule',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      group_id: { type: DataTypes.INTEGER, allowNull: false },
      direction: { type: DataTypes.STRING(8), allowNull: false },
      protocol: { type: DataTypes.STRING(8), allowNull: false },
      port_from: { type: DataTypes.INTEGER, allowNull: false },
      port_to: { type: DataTypes.INTEGER, allowNull: false },
      cidr: { type: DataTypes.STRING(49), allowNull: false },
      action: { type: DataTypes.STRING(8), allowNull: false },
      description: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      created_at: DataTypes.DATE,
    },
    { tableName: 'security_group_rules', timestamps: true, createdAt: 'created_at', updatedAt: false },
  );
  const ServiceSecurityGroup = sequelize.define<ServiceSecurityGroupRow>(
    'ServiceSecurityGroup',
    {
      service_id: { type: DataTypes.INTEGER, primaryKey: true },
      group_id: { type: DataTypes.INTEGER, primaryKey: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      created_at: DataTypes.DATE,
    },
    { tableName: 'service_security_groups', timestamps: true, createdAt: 'created_at', updatedAt: false },
  );
  const ServiceSecurityRulePush = sequelize.define<ServiceSecurityRulePushRow>(
    'ServiceSecurityRulePush',
    {
      service_id: { type: DataTypes.INTEGER, primaryKey: true },
      rule_id: { type: DataTypes.INTEGER, primaryKey: true },
      group_id: { type: DataTypes.INTEGER, allowNull: false },
      upstream_rule_id: { type: DataTypes.STRING(64), allowNull: false },
      created_at: DataTypes.DATE,
    },
    { tableName: 'service_security_rule_pushes', timestamps: true, createdAt: 'created_at', updatedAt: false },
  );
  return { SecurityGroup, SecurityGroupRule, ServiceSecurityGroup, ServiceSecurityRulePush };
}
