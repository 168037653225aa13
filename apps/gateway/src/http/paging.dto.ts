import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_PAGE_SIZE } from './paging';

/** `?page` and `?limit` of the paged endpoints (read by `parsePage`, which answers 400 on bad values). */
export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, description: 'Page number, from 1' })
  page?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    default: 20,
    description: `Page size; above ${MAX_PAGE_SIZE} is served as ${MAX_PAGE_SIZE}`,
  })
  limit?: string;
}

/** What every page says about itself (docs/api.md#credits). */
export abstract class PageDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) page!: number;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE }) limit!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Items in all pages' }) total!: number;
}
